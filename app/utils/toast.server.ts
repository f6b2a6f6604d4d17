import { getToast, redirectWithError, redirectWithSuccess, setToastCookieOptions } from "remix-toast";
import { getEnv } from "./env.server";

// Flash messages ride in their own signed cookie and render in the server HTML (components/toasts.tsx).
const env = getEnv();
setToastCookieOptions({ secrets: env.sessionSecrets, secure: env.secureCookies, httpOnly: true, sameSite: "lax" });

export { getToast, redirectWithError, redirectWithSuccess };
