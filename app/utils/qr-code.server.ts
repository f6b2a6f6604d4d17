import QRCode from "qrcode";

/** A QR code as an SVG string, made on the server so the set-up page needs no script. */
export async function qrCodeSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2, color: { dark: "#000000", light: "#ffffff" } });
}
