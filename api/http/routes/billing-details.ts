import { z } from "zod";
import { route } from "../contract/route";
import { BILLING_DETAILS_MESSAGES, billingDetailsOf, saveBillingCountry, saveBillingDetails, vatCheckerFor } from "../../billing/billing-details";
import { COUNTRY_CODES, countryList } from "../../billing/countries";
import { body, countryField, optionalText, requiredText, withoutControlCharacters } from "../validation";

const COUNTRY_REQUIRED = "Please choose your country.";

const BillingDetailsSchema = z
  .strictObject({
    country: z.string().meta({ description: "ISO 3166-1 alpha-2", examples: ["DE"] }),
    country_name: z.string().meta({ description: "The country's English name", examples: ["Germany"] }),
    name: z.string().meta({
      description: "The name invoices are made out to (a person or a company); empty when only the country was saved (PUT /api/account/billing-country)",
      examples: ["José Müller"],
    }),
    address: z.string().nullable().meta({ description: "The address, lines separated by newlines; null when not given", examples: ["Straße 5\n50667 Köln"] }),
    vat_number: z.string().nullable().meta({ description: "Normalised (country prefix, no spaces); EU countries only", examples: ["DE123456789"] }),
    vat_number_status: z.enum(["valid", "invalid", "unchecked"]).nullable().meta({
      description: "valid: VIES (or the sandbox's stand-in) found it registered; unchecked: accepted on its format alone (VIES_CHECK off, or VIES could not answer); null without a VAT number.",
    }),
    updated_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "BillingDetails" });

const CountrySchema = z.strictObject({ code: z.string(), name: z.string(), eu: z.boolean() }).meta({ id: "Country" });

const billingDetailsRequest = body({
  country: z
    .string({ error: COUNTRY_REQUIRED })
    .trim()
    .toUpperCase()
    .refine((value) => (COUNTRY_CODES as readonly string[]).includes(value), { error: COUNTRY_REQUIRED })
    .meta({ description: "ISO 3166-1 alpha-2 (one of GET's countries)", override: { type: "string", minLength: 2, maxLength: 2 } }),
  name: requiredText("name", { max: 200, required: "Please enter the name for your invoices." }),
  address: z
    .string({ error: "The address field must be text." })
    .trim()
    .max(500, { error: "The address field must not be longer than 500 characters.", abort: true })
    .refine(...withoutControlCharacters("address", { multiline: true }))
    .nullish()
    .transform((v) => (v ? v.replace(/\r\n?/g, "\n") : undefined))
    .meta({ description: "Optional; lines separated by newlines", override: { anyOf: undefined, type: ["string", "null"], maxLength: 500 } }),
  vat_number: optionalText("VAT number", 32).meta({
    description: "Optional. EU countries only: checked for the country's format, then by VIES (sandbox: DE000000000 is not registered). Ignored for a country outside the EU.",
  }),
}).meta({ id: "BillingDetailsRequest" });

export const billingDetailsRoutes = [
  route({
    method: "get",
    path: "/api/account/billing-details",
    operationId: "getBillingDetails",
    tags: ["Billing"],
    summary: "The account's billing details, and the countries to choose from",
    description:
      "billing_details is null until they are saved. countries lists every ISO 3166-1 alpha-2 code with its English name, sorted by name, and whether it is in the EU (where a VAT number applies).",
    auth: true,
    success: {
      description: "The billing details (or null) and the countries",
      data: z.strictObject({ billing_details: BillingDetailsSchema.nullable(), countries: z.array(CountrySchema) }),
    },
    async handler({ ctx, auth }) {
      return { data: { billing_details: await billingDetailsOf(ctx.db, auth.user.id), countries: countryList() } };
    },
  }),

  route({
    method: "put",
    path: "/api/account/billing-details",
    operationId: "saveBillingDetails",
    tags: ["Billing"],
    summary: "Save the account's billing details",
    description:
      "Invoices made from now on print them; an invoice already made keeps the details it was made with. A VAT number (EU countries only; ignored for others) must have its country's format and, in sandbox mode or with VIES_CHECK=true, be registered (VIES).",
    auth: true,
    body: billingDetailsRequest,
    success: { description: `'${BILLING_DETAILS_MESSAGES.saved}'`, data: BillingDetailsSchema },
    errors: { 422: `Invalid fields; '${BILLING_DETAILS_MESSAGES.vatInvalid}' or the country's format (under errors.fields.vat_number)` },
    async handler({ ctx, auth, body: input }) {
      const saved = await saveBillingDetails(
        { db: ctx.db, vat: vatCheckerFor(ctx.config, ctx.logger), now: ctx.clock.now() },
        auth.user.id,
        input,
      );
      return { data: saved, message: BILLING_DETAILS_MESSAGES.saved };
    },
  }),

  route({
    method: "put",
    path: "/api/account/billing-country",
    operationId: "saveBillingCountry",
    tags: ["Billing"],
    summary: "Save only the account's billing country (the checkout's country before paying)",
    description:
      "The country the tax of the account's next payments is for (issue 35, docs/decisions/061): the quotes of GET /api/account/checkout and every payment tax from it. The rest of the billing details is kept; without billing details yet, they are made with this country and an empty name. Changing the country drops a VAT number (it belongs to its country): the account is then taxed as a consumer until a VAT number of the new country is saved with PUT /api/account/billing-details.",
    auth: true,
    body: body({ country: countryField(COUNTRY_REQUIRED) }).meta({ id: "BillingCountryRequest" }),
    success: { description: `'${BILLING_DETAILS_MESSAGES.countrySaved}'`, data: BillingDetailsSchema },
    errors: { 422: `'${COUNTRY_REQUIRED}' (under errors.fields.country)` },
    async handler({ ctx, auth, body: input }) {
      const saved = await saveBillingCountry({ db: ctx.db, now: ctx.clock.now() }, auth.user.id, input.country);
      return { data: saved, message: BILLING_DETAILS_MESSAGES.countrySaved };
    },
  }),
];
