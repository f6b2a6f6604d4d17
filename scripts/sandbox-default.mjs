// `npm start` and `npm run dev` on a fresh clone run the whole product on its stand-ins (docs/decisions/019):
// sandbox mode, said at start and on every page. Only when nothing is configured: as soon as one integration
// has a credential, SANDBOX must be said outright, so a half-configured deploy refuses to start instead of
// quietly standing in for what it lacks. The server itself never defaults (server/config.ts): sandbox mode is
// SANDBOX=true, set here or by whoever starts it. The container image runs build/server.js: no default there.
const CREDENTIALS = ["SMTP_URL", "STRIPE_SECRET_KEY", "BITPAY_API_TOKEN", "PAYPAL_CLIENT_ID", "GOOGLE_CLIENT_ID", "APPLE_CLIENT_ID"];

/** Sets SANDBOX=true in this process's environment when it is unset and no integration has a credential. */
export function sandboxWhenNothingConfigured(command) {
  if (process.env.SANDBOX || CREDENTIALS.some((name) => process.env[name])) return;
  process.env.SANDBOX = "true";
  console.info(`${command}: nothing is configured, so this runs in sandbox mode (SANDBOX=true). Set SANDBOX=false for a real deploy.`);
}
