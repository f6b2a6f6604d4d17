import type { Migration } from "kysely";
import * as m0001 from "./0001_init";
import * as m0002 from "./0002_codes_mail";
import * as m0003 from "./0003_identity";
import * as m0004 from "./0004_commerce";
import * as m0005 from "./0005_crypto";
import * as m0006 from "./0006_account_deletion";
import * as m0007 from "./0007_refunds";
import * as m0008 from "./0008_two_factor";
import * as m0009 from "./0009_revocation_replay_guarantee";
import * as m0010 from "./0010_coupon_reservations";
import * as m0011 from "./0011_notices";
import * as m0012 from "./0012_dunning";
import * as m0013 from "./0013_plan_changes";
import * as m0014 from "./0014_mail_reply_to";
import * as m0015 from "./0015_security_events";
import * as m0016 from "./0016_email_changes";
import * as m0017 from "./0017_passkeys";
import * as m0018 from "./0018_cancel_without_signing_in";
import * as m0019 from "./0019_paypal";
import * as m0022 from "./0022_passkey_confirmation";
import * as m0023 from "./0023_security_event_client_hints";
import * as m0024 from "./0024_vpn_manual_setup";
import * as m0025 from "./0025_invoices_and_billing_details";
import * as m0026 from "./0026_tax";
import * as m0027 from "./0027_credit_note_tax";
import * as m0028 from "./0028_account_language";

/**
 * Every migration, by name, in order. An explicit object (not a folder scan) because the API is
 * bundled by esbuild. Add new migrations here.
 */
export const migrations: Record<string, Migration> = {
  "0001_init": m0001,
  "0002_codes_mail": m0002,
  "0003_identity": m0003,
  "0004_commerce": m0004,
  "0005_crypto": m0005,
  "0006_account_deletion": m0006,
  "0007_refunds": m0007,
  "0008_two_factor": m0008,
  "0009_revocation_replay_guarantee": m0009,
  "0010_coupon_reservations": m0010,
  "0011_notices": m0011,
  "0012_dunning": m0012,
  "0013_plan_changes": m0013,
  "0014_mail_reply_to": m0014,
  "0015_security_events": m0015,
  "0016_email_changes": m0016,
  "0017_passkeys": m0017,
  "0018_cancel_without_signing_in": m0018,
  "0019_paypal": m0019,
  "0022_passkey_confirmation": m0022,
  "0023_security_event_client_hints": m0023,
  "0024_vpn_manual_setup": m0024,
  "0025_invoices_and_billing_details": m0025,
  "0026_tax": m0026,
  "0027_credit_note_tax": m0027,
  "0028_account_language": m0028,
};
