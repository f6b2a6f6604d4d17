// Where the sandbox's 3-D Secure challenge returns inside the checkout's challenge dialog (an iframe of
// this origin): the dialog sees this page load, closes, and the page finishes the payment through the
// API, which asks the gateway what happened (the query's redirect_status is never trusted).

export function loader() {
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authentication finished</title></head><body><p>Authentication finished. You can return to the payment.</p></body></html>';
  return new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" } });
}
