// React's web-streams renderer by its own path (app/entry.server.tsx says why): the same API as the
// renderToReadableStream that @types/react-dom declares for react-dom/server.
declare module "react-dom/server.browser" {
  export { renderToReadableStream } from "react-dom/server";
}
