vcl 4.1;

# The deploy rehearsal's CDN (npm run test:deploy, scripts/test-deploy.ts): Varnish in front of two portal
# instances, configured as a CDN keys its cache: on the answer's own headers. Requests with cookies are
# looked up too (no blanket pass on Cookie as Varnish's builtin VCL does): the portal's Cache-Control
# (private, no-store, s-maxage) and Vary: Cookie alone must keep one customer's page from another.
# The two backends' ports are written in by the script (__PORT_A__, __PORT_B__).

import directors;
import std;

probe healthz {
  .url = "/healthz";
  .interval = 500ms;
  .timeout = 2s;
  .window = 3;
  .threshold = 2;
  .initial = 1;
}

backend a { .host = "127.0.0.1"; .port = "__PORT_A__"; .probe = healthz; .connect_timeout = 1s; .first_byte_timeout = 60s; }
backend b { .host = "127.0.0.1"; .port = "__PORT_B__"; .probe = healthz; .connect_timeout = 1s; .first_byte_timeout = 60s; }

sub vcl_init {
  new portal = directors.round_robin();
  portal.add_backend(a);
  portal.add_backend(b);
}

sub vcl_recv {
  set req.backend_hint = portal.backend();
  # Varnish has appended the client's address to X-Forwarded-For already; the host the client addressed
  # and a request id of our own go with every request (a client's own X-Forwarded-Host is not believed).
  set req.http.X-Forwarded-Host = req.http.Host;
  set req.http.X-Request-Id = "cdn-" + req.xid;
  if (req.method != "GET" && req.method != "HEAD") {
    return (pass);
  }
  # RFC 9111: an answer to a request with credentials is shared only when it says so; not worth the risk.
  if (req.http.Authorization) {
    return (pass);
  }
  # The page's language (issue 36): the portal answers in the `lang` cookie's language, else the first of
  # its languages the browser names, else English, and says Vary: Accept-Language. Normalising the header
  # to that one language, as CDNs do with Vary headers, keeps one copy per language instead of one per
  # browser's header; the portal reads the same choice from it.
  if (req.http.Cookie ~ "(^|;)\s*lang=(en|de|fr|es)\s*(;|$)") {
    set req.http.Accept-Language = regsub(req.http.Cookie, "^(?:.*;)?\s*lang=(en|de|fr|es)\s*(?:;.*)?$", "\1");
  } else if (req.http.Accept-Language ~ "(?i)\b(en|de|fr|es)\b") {
    set req.http.Accept-Language = std.tolower(regsub(req.http.Accept-Language, "(?i)^.*?\b(en|de|fr|es)\b.*$", "\1"));
  } else {
    set req.http.Accept-Language = "en";
  }
  # Cookies are kept and sent on: the answer's Vary: Cookie and Cache-Control decide.
  return (hash);
}

sub vcl_backend_fetch {
  # The request id per backend fetch (a retry is a new fetch).
  set bereq.http.X-Request-Id = "cdn-" + bereq.xid;
  # As a CDN's origin request (CloudFront's default): the origin's own name as Host; the address the client
  # used only in X-Forwarded-Host, which the portal must honour (links, form posts' origin check).
  set bereq.http.Host = "origin.internal";
}

sub vcl_backend_response {
  set beresp.http.X-Served-By = beresp.backend.name;
  # Varnish's builtin rules then apply: s-maxage before max-age; private, no-store, no-cache, Set-Cookie
  # or Vary: * make the answer uncacheable (hit-for-miss).
}

sub vcl_backend_error {
  # An instance that went away (killed, restarting) before its probe noticed: a safe request goes to the other.
  if (bereq.retries < 1 && (bereq.method == "GET" || bereq.method == "HEAD")) {
    return (retry);
  }
}

sub vcl_deliver {
  if (obj.uncacheable) {
    set resp.http.X-Cache = "PASS";
  } else if (obj.hits > 0) {
    set resp.http.X-Cache = "HIT";
  } else {
    set resp.http.X-Cache = "MISS";
  }
}
