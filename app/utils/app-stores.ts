// The mobile apps' store pages: fixed (identity §6); the desktop downloads come from the API (/api/download-links).
export const IOS_APP_URL = "https://apps.apple.com/app/id6450000000";
export const ANDROID_APP_URL = "https://play.google.com/store/apps/details?id=com.example.vpn";
