import * as z from "zod/mini";
import { isWireGuardKey } from "~/features/vpn/wireguard-config";
import { choiceField, textField } from "./fields";
import { hasControlCharacters } from "./text";

// 'Create configuration' on 'Manual setup' (issue 34): the configuration's 'Name' (1–40 printable
// characters, no control or bidirectional characters, as the API checks it), its 'Server' ('fastest' or a
// hostname from the list; the API has the last word on which exist), and, with JavaScript, the public key
// of the pair the browser made (a hidden field; without JavaScript it is absent and the server makes the pair).
export const WIREGUARD_NAME_MAX = 40;

/** Catalogue keys (app/locales/<language>/vpn.json): Field and FormAlert translate them. The catalogue says the 40 of nameTooLong. */
export const WIREGUARD_FORM_MESSAGES = {
  nameRequired: "vpn.wireguard.create.nameRequired",
  nameTooLong: "vpn.wireguard.create.nameTooLong",
  nameControlCharacters: "vpn.wireguard.create.nameControlCharacters",
  serverRequired: "vpn.wireguard.create.serverRequired",
  publicKey: "vpn.wireguard.create.publicKeyInvalid",
} as const;

export const WireGuardConfigSchema = z.object({ name: textField, server: choiceField, public_key: choiceField }).check(
  z.superRefine((value, ctx) => {
    // Counted as the API counts it (zod's string length, UTF-16 units: an emoji outside the BMP is two), so
    // that the page never lets through a name the API refuses.
    if (!value.name) ctx.addIssue({ code: "custom", message: WIREGUARD_FORM_MESSAGES.nameRequired, path: ["name"] });
    else if (value.name.length > WIREGUARD_NAME_MAX) ctx.addIssue({ code: "custom", message: WIREGUARD_FORM_MESSAGES.nameTooLong, path: ["name"] });
    else if (hasControlCharacters(value.name)) ctx.addIssue({ code: "custom", message: WIREGUARD_FORM_MESSAGES.nameControlCharacters, path: ["name"] });
    if (!value.server.trim() || value.server.length > 253) ctx.addIssue({ code: "custom", message: WIREGUARD_FORM_MESSAGES.serverRequired, path: ["server"] });
    if (value.public_key && !isWireGuardKey(value.public_key)) {
      ctx.addIssue({ code: "custom", message: WIREGUARD_FORM_MESSAGES.publicKey, path: ["public_key"] });
    }
  }),
);

export type WireGuardConfigFields = z.input<typeof WireGuardConfigSchema>;
