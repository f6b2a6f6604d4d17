import { svgDataUrl } from "./wireguard-config";

// The configuration's QR code made in the browser (issue 34): with JavaScript the private key is only
// there, so the code is drawn there too. `qrcode` (the same package the server draws with) is imported on
// demand, a chunk only this page loads once a configuration is made. The SVG becomes an <img>'s data: URL,
// as the server's does for a page without JavaScript.

/** The QR code of `text` as a data: URL of an SVG. */
export async function qrCodeDataUrl(text: string): Promise<string> {
  // A CommonJS package: its exports are the import's default.
  const { default: QRCode } = await import("qrcode");
  const svg = await QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2, color: { dark: "#000000", light: "#ffffff" } });
  return svgDataUrl(svg);
}
