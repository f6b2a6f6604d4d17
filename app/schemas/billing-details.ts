import * as z from "zod/mini";
import { textField } from "./fields";
import { hasControlCharacters } from "./text";

// Billing's 'Billing details' form (issue 35): 'Country', 'Name', 'Address' (optional) and 'VAT number'
// (optional, EU businesses). The API checks the same and has the last word (api/http/routes/billing-details.ts):
// the VAT number's format for its country and whether it is registered are its checks alone.

export const BILLING_NAME_MAX = 200;
export const BILLING_ADDRESS_MAX = 500;
export const VAT_NUMBER_MAX = 32;

/** Catalogue keys (app/locales/<language>/billing.json): Field shows them translated. The limits above are written out in their texts. */
export const BILLING_DETAILS_MESSAGES = {
  country: "billing.details.error.country",
  name: "billing.details.error.name",
  nameLong: "billing.details.error.nameLong",
  addressLong: "billing.details.error.addressLong",
  vatLong: "billing.details.error.vatLong",
  controls: "billing.details.error.controls",
} as const;

export const BillingDetailsSchema = z
  .object({ country: textField, name: textField, address: textField, vat_number: textField })
  .check(
    z.superRefine((value, ctx) => {
      const m = BILLING_DETAILS_MESSAGES;
      if (!/^[A-Za-z]{2}$/.test(value.country)) ctx.addIssue({ code: "custom", message: m.country, path: ["country"] });
      if (!value.name) ctx.addIssue({ code: "custom", message: m.name, path: ["name"] });
      else if (value.name.length > BILLING_NAME_MAX) ctx.addIssue({ code: "custom", message: m.nameLong, path: ["name"] });
      else if (hasControlCharacters(value.name)) ctx.addIssue({ code: "custom", message: m.controls, path: ["name"] });
      if (value.address.length > BILLING_ADDRESS_MAX) ctx.addIssue({ code: "custom", message: m.addressLong, path: ["address"] });
      else if (hasControlCharacters(value.address, { multiline: true })) ctx.addIssue({ code: "custom", message: m.controls, path: ["address"] });
      if (value.vat_number.length > VAT_NUMBER_MAX) ctx.addIssue({ code: "custom", message: m.vatLong, path: ["vat_number"] });
    }),
  );

export type BillingDetailsFields = z.input<typeof BillingDetailsSchema>;
