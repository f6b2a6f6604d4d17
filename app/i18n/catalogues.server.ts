// Every language x namespace of the catalogue, bundled into the server build (the browser downloads its language from /locales).
// Add a namespace in config.ts and here; tests/unit/locales.test.ts checks that both agree.
import en_common from "../locales/en/common.json";
import en_auth from "../locales/en/auth.json";
import en_pricing from "../locales/en/pricing.json";
import en_checkout from "../locales/en/checkout.json";
import en_payments from "../locales/en/payments.json";
import en_billing from "../locales/en/billing.json";
import en_account from "../locales/en/account.json";
import en_vpn from "../locales/en/vpn.json";
import en_pages from "../locales/en/pages.json";
import de_common from "../locales/de/common.json";
import de_auth from "../locales/de/auth.json";
import de_pricing from "../locales/de/pricing.json";
import de_checkout from "../locales/de/checkout.json";
import de_payments from "../locales/de/payments.json";
import de_billing from "../locales/de/billing.json";
import de_account from "../locales/de/account.json";
import de_vpn from "../locales/de/vpn.json";
import de_pages from "../locales/de/pages.json";
import fr_common from "../locales/fr/common.json";
import fr_auth from "../locales/fr/auth.json";
import fr_pricing from "../locales/fr/pricing.json";
import fr_checkout from "../locales/fr/checkout.json";
import fr_payments from "../locales/fr/payments.json";
import fr_billing from "../locales/fr/billing.json";
import fr_account from "../locales/fr/account.json";
import fr_vpn from "../locales/fr/vpn.json";
import fr_pages from "../locales/fr/pages.json";
import es_common from "../locales/es/common.json";
import es_auth from "../locales/es/auth.json";
import es_pricing from "../locales/es/pricing.json";
import es_checkout from "../locales/es/checkout.json";
import es_payments from "../locales/es/payments.json";
import es_billing from "../locales/es/billing.json";
import es_account from "../locales/es/account.json";
import es_vpn from "../locales/es/vpn.json";
import es_pages from "../locales/es/pages.json";
import type { Catalogue } from "./config";
import type { Language } from "./languages";

export const CATALOGUES: Record<Language, Catalogue> = {
  en: { common: en_common, auth: en_auth, pricing: en_pricing, checkout: en_checkout, payments: en_payments, billing: en_billing, account: en_account, vpn: en_vpn, pages: en_pages },
  de: { common: de_common, auth: de_auth, pricing: de_pricing, checkout: de_checkout, payments: de_payments, billing: de_billing, account: de_account, vpn: de_vpn, pages: de_pages },
  fr: { common: fr_common, auth: fr_auth, pricing: fr_pricing, checkout: fr_checkout, payments: fr_payments, billing: fr_billing, account: fr_account, vpn: fr_vpn, pages: fr_pages },
  es: { common: es_common, auth: es_auth, pricing: es_pricing, checkout: es_checkout, payments: es_payments, billing: es_billing, account: es_account, vpn: es_vpn, pages: es_pages },
};
