// The apps' fixed store links (identity §2: iOS and Android are fixed; the desktop links come from the
// API's /api/download-links). Shared by the account home's Downloads, /help and the checkout's receipt.
export const IOS_APP_URL = "https://apps.apple.com/app/id6450000000";
export const ANDROID_APP_URL = "https://play.google.com/store/apps/details?id=com.example.vpn";
