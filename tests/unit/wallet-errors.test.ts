import { describe, expect, it } from "vitest";
import { translatorFor } from "../../app/i18n/i18n.server";
import {
  APPLE_CHARGE_MESSAGES,
  APPLE_PAY_LOAD_MESSAGES,
  APPLE_PAY_MESSAGES,
  EXPRESS_CHECKOUT_MESSAGES,
  GOOGLE_PAY_MESSAGES,
  WALLET_REQUEST_FALLBACK,
  type Wallet,
  type WalletCause,
  appleChargeMessage,
  appleLoadFailure,
  appleLoadMessage,
  appleUnavailableMessage,
  describeWalletFailure,
  expressCheckoutMessage,
  walletRequestMessage,
} from "../../app/utils/wallet-errors";
import { sandboxUnavailable } from "../../app/features/wallets/wallet-sandbox";
import {
  DEMO_ORDER,
  appleRecurringRequest,
  intervalLabel,
  recurringInterval,
  walletOrder,
} from "../../app/features/wallets/wallet-request";

// Every Google Pay, Apple Pay, wallet-load and express-checkout message of commerce §8, reached from its cause.
// The messages are catalogue keys (issue 36): checked as the English customer reads them.

const en = translatorFor("en");
const english = (key: string | null) => (key === null ? null : en(key));

// The device as the API read it (the payment config's device.os): the browser never parses its User-Agent.
const ANDROID = "Android";
const MACOS = "macOS";

const message = (wallet: Wallet, cause: WalletCause) => en(describeWalletFailure(wallet, cause).message);
const described = (wallet: Wallet, cause: WalletCause) => {
  const result = describeWalletFailure(wallet, cause);
  return { ...result, message: en(result.message) };
};

describe("Google Pay messages", () => {
  it("cancelled: the buyer closed the sheet, or the request was aborted — an info message", () => {
    expect(described("googlepay", { type: "cancelled" })).toEqual({
      failure: "cancelled",
      tone: "info",
      message: "You cancelled Google Pay before completing the purchase.",
    });
    expect(message("googlepay", { type: "thrown", error: new DOMException("The user aborted a request.", "AbortError") })).toBe(
      en(GOOGLE_PAY_MESSAGES.cancelled),
    );
  });

  it("network: fetch failed, or no answer, or Stripe could not be reached", () => {
    const expected = "Network issue — please check your connection and try Google Pay again.";
    expect(message("googlepay", { type: "thrown", error: new TypeError("Failed to fetch") })).toBe(expected);
    expect(message("googlepay", { type: "answer", status: 0 })).toBe(expected);
    expect(message("googlepay", { type: "gateway", error: { type: "api_connection_error" } })).toBe(expected);
  });

  it("not authorized: the wallet's card could not become a payment method", () => {
    const expected = "Google Pay could not authorize your card. Try a different card or method.";
    expect(message("googlepay", { type: "gateway", error: { type: "card_error", code: "expired_card" } })).toBe(expected);
    expect(message("googlepay", { type: "gateway", error: { type: "validation_error" } })).toBe(expected);
  });

  it("declined: the payment answered 402 (whatever the gateway's own wording)", () => {
    expect(message("googlepay", { type: "answer", status: 402, message: "Your card was declined." })).toBe(
      "Your bank declined this Google Pay charge. Please use another payment option.",
    );
  });

  it("unavailable: not in this browser or device — shown as a notice", () => {
    expect(described("googlepay", { type: "unavailable" })).toMatchObject({
      tone: "info",
      message: "Google Pay is not available in this browser or device.",
    });
    expect(english(sandboxUnavailable("googlepay", "unavailable", MACOS))).toBe(en(GOOGLE_PAY_MESSAGES.unavailable));
    expect(english(sandboxUnavailable("googlepay", null, ANDROID))).toBeNull();
  });

  it("generic: a server failure, a rate limit, anything unexpected", () => {
    const expected = "Unable to complete your Google Pay transaction right now.";
    expect(message("googlepay", { type: "answer", status: 503, message: "We can't reach our servers right now." })).toBe(expected);
    expect(message("googlepay", { type: "answer", status: 429, message: "Too many payment attempts. Please try again later." })).toBe(expected);
    expect(message("googlepay", { type: "thrown", error: new Error("boom") })).toBe(expected);
    expect(message("googlepay", { type: "gateway", error: { type: "api_error" } })).toBe(expected);
    expect(message("googlepay", { type: "gateway", error: null })).toBe(expected);
  });

  it("another refusal shows the server's message, else 'Google Pay transaction failed. Please try again.'", () => {
    expect(message("googlepay", { type: "answer", status: 409, message: "This is already your current plan." })).toBe(
      "This is already your current plan.",
    );
    expect(message("googlepay", { type: "answer", status: 422 })).toBe("Google Pay transaction failed. Please try again.");
    expect(message("googlepay", { type: "answer", status: 422, message: "  " })).toBe(en(GOOGLE_PAY_MESSAGES.failed));
  });

  it("the email rule of commerce §5 has its message", () => {
    expect(en(GOOGLE_PAY_MESSAGES.invalidEmail)).toBe("Please enter a valid email address to proceed with Google Pay Checkout.");
  });
});

describe("Apple Pay messages", () => {
  it("cancelled", () => {
    expect(described("applepay", { type: "cancelled" })).toMatchObject({
      tone: "info",
      message: "You cancelled Apple Pay before completing the purchase.",
    });
  });

  it("on Android, or not available: the notice that replaces the button", () => {
    expect(en(appleUnavailableMessage(ANDROID))).toBe("Apple Pay isn’t supported on Android devices. Please use Google Pay or another payment method.");
    expect(en(appleUnavailableMessage(MACOS))).toBe("Apple Pay is not available on your device. Please use a different payment method or device.");
    expect(message("applepay", { type: "unavailable", android: true })).toBe(en(APPLE_PAY_MESSAGES.android));
    expect(message("applepay", { type: "unavailable" })).toBe(en(APPLE_PAY_MESSAGES.unavailable));
    expect(english(sandboxUnavailable("applepay", null, ANDROID))).toBe(en(APPLE_PAY_MESSAGES.android));
    expect(english(sandboxUnavailable("applepay", "android", MACOS))).toBe(en(APPLE_PAY_MESSAGES.android));
    expect(english(sandboxUnavailable("applepay", "unavailable", MACOS))).toBe(en(APPLE_PAY_MESSAGES.unavailable));
    expect(english(sandboxUnavailable("applepay", null, MACOS))).toBeNull();
  });

  it("a refused payment (declined, card not authorized) is the checkout's 'Apple Pay transaction failed. Please try again.'", () => {
    expect(message("applepay", { type: "answer", status: 402, message: "Your card was declined." })).toBe(
      "Apple Pay transaction failed. Please try again.",
    );
    expect(message("applepay", { type: "gateway", error: { type: "card_error" } })).toBe(en(APPLE_PAY_MESSAGES.failed));
    expect(message("applepay", { type: "answer", status: 422 })).toBe(en(APPLE_PAY_MESSAGES.failed));
    expect(message("applepay", { type: "answer", status: 409, message: "This is already your current plan." })).toBe(
      "This is already your current plan.",
    );
  });

  it("the generic fallback mirrors Google's (network and unexpected failures)", () => {
    expect(message("applepay", { type: "answer", status: 500 })).toBe("Unable to complete your Apple Pay transaction right now.");
    expect(message("applepay", { type: "thrown", error: new TypeError("Failed to fetch") })).toBe(en(APPLE_PAY_MESSAGES.generic));
  });
});

describe("Apple Pay wallet load messages", () => {
  it("from what the browser reports", () => {
    expect(en(appleLoadMessage(appleLoadFailure({ applePaySession: false })))).toBe("Apple Pay is not supported in this browser.");
    expect(en(appleLoadMessage(appleLoadFailure({ applePaySession: true, canMakePayments: false })))).toBe(
      "Apple Pay wallet not set up on this device.",
    );
    expect(en(appleLoadMessage(appleLoadFailure({ applePaySession: true, canMakePayments: true, activeCard: false })))).toBe(
      "No active card found for Apple Pay. Please add one to your wallet.",
    );
    expect(en(appleLoadMessage(appleLoadFailure({ applePaySession: true, canMakePayments: true })))).toBe(
      "Apple Pay is not available on this device or browser.",
    );
  });

  it("and from the sandbox's ?wallet= flags", () => {
    expect(english(sandboxUnavailable("applepay", "no-active-card", MACOS))).toBe(en(APPLE_PAY_LOAD_MESSAGES.noActiveCard));
    expect(english(sandboxUnavailable("applepay", "unsupported-browser", MACOS))).toBe(en(APPLE_PAY_LOAD_MESSAGES.unsupportedBrowser));
    expect(english(sandboxUnavailable("applepay", "not-set-up", MACOS))).toBe(en(APPLE_PAY_LOAD_MESSAGES.notSetUp));
    expect(english(sandboxUnavailable("applepay", "load-error", MACOS))).toBe(en(APPLE_PAY_LOAD_MESSAGES.default));
  });
});

describe("express checkout (/demo) and the wallet calls", () => {
  it("express checkout: refused details, no payment method, anything else", () => {
    expect(en(expressCheckoutMessage("invalid_details"))).toBe("Invalid payment details");
    expect(en(expressCheckoutMessage("payment_method"))).toBe("Failed to create payment method");
    expect(en(expressCheckoutMessage("other"))).toBe("Express checkout error");
    expect(Object.values(EXPRESS_CHECKOUT_MESSAGES).map((key) => en(key)).sort()).toEqual(["Express checkout error", "Failed to create payment method", "Invalid payment details"]);
  });

  it("a failed wallet payment or merchant validation: the server's errors.message, else 'Failed to create Stripe payment'", () => {
    expect(en(walletRequestMessage({ status: false, message: "Top", errors: { message: "Your card was declined." } }))).toBe("Your card was declined.");
    expect(en(walletRequestMessage({ error: { message: "From error" } }))).toBe("From error");
    expect(en(walletRequestMessage({ success: false }))).toBe(en(WALLET_REQUEST_FALLBACK));
    expect(en(walletRequestMessage(null))).toBe("Failed to create Stripe payment");
  });

  it("the Apple Pay charge: the parsed error body, else 'Apple Pay charge failed'; no answer: 'Network error'", () => {
    expect(en(appleChargeMessage({ body: { errors: { message: "Only USD is accepted." } } }))).toBe("Only USD is accepted.");
    expect(en(appleChargeMessage({ body: "<html>" }))).toBe(en(APPLE_CHARGE_MESSAGES.failed));
    expect(en(appleChargeMessage({ body: undefined }))).toBe("Apple Pay charge failed");
    expect(en(appleChargeMessage({ network: true }))).toBe("Network error");
  });
});

describe("the Apple Pay recurring request (commerce §9)", () => {
  it("interval from the slug: month or year, the count from its number, default 1 month", () => {
    expect(recurringInterval("1-month")).toEqual({ unit: "month", count: 1 });
    expect(recurringInterval("3-months")).toEqual({ unit: "month", count: 3 });
    expect(recurringInterval("6-months")).toEqual({ unit: "month", count: 6 });
    expect(recurringInterval("1-year")).toEqual({ unit: "year", count: 1 });
    expect(recurringInterval("2-years")).toEqual({ unit: "year", count: 2 });
    expect(recurringInterval("yearly")).toEqual({ unit: "year", count: 1 });
    expect(recurringInterval("premium")).toEqual({ unit: "month", count: 1 });
    expect(recurringInterval(undefined)).toEqual({ unit: "month", count: 1 });
    expect(intervalLabel({ unit: "year", count: 2 }, en)).toBe("every 2 years");
    expect(intervalLabel({ unit: "month", count: 1 }, en)).toBe("every month");
    expect(intervalLabel({ unit: "month", count: 3 }, translatorFor("de"))).toBe("alle 3 Monate");
    expect(intervalLabel({ unit: "year", count: 1 }, translatorFor("fr"))).toBe("chaque année");
  });

  it("the plan's renewal in cents; none for the one-time plan; the demo's 599 cents monthly", () => {
    const twoYears = walletOrder({ title: "2 Years" }, { amount_cents: 9698, renewal: { amount_cents: 10776, interval_months: 24 } });
    const request = appleRecurringRequest(twoYears, "https://vpn.example/billing", en);
    expect(request).toMatchObject({
      managementURL: "https://vpn.example/billing",
      regularBilling: { amount: 10776, recurringPaymentIntervalUnit: "year", recurringPaymentIntervalCount: 2 },
    });
    expect(twoYears.cents).toBe(9698);
    const fiveYears = walletOrder({ title: "5 Years" }, { amount_cents: 19900, renewal: null });
    expect(appleRecurringRequest(fiveYears, "https://vpn.example/billing", en)).toBeNull();
    expect(DEMO_ORDER).toMatchObject({ cents: 599, renewalCents: 599, interval: { unit: "month", count: 1 } });
  });
});
