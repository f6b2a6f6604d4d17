// The one list of countries lives in the platform (payments' tax needs it too, and payments cannot import billing).
export * from "../platform/countries";
