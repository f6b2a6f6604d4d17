// The logged-out path of the checkout (commerce §2): the same page as /subscription/payment/{planId}.
export { action, default, headers, loader, meta } from "./subscription.payment.$planId/route";
