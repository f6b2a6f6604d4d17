import { type APIRequestContext, test as base, expect } from "@playwright/test";
import { signInForm } from "./accounts";
import { createUser } from "./e2e";

// The browser specs' `test`, with a signed-in page one call away (as the Epic Stack's tests/playwright-utils.ts
// has it): `await login()` makes an account and signs the page's browser context in without the UI, through
// the portal's own sign-in form over HTTP, so the context holds the real session cookie whether the project
// runs with JavaScript or without. The sign-in specs (sign-in, two-factor, navigation, security, ...) keep
// signing in through the UI: that is what they test.

type User = { email: string; password: string };
type NewUser = Parameters<typeof createUser>[0];
/**
 * Signs the page in: as `user`, or as a new account made by createUser (tests/support/e2e.ts) with
 * `options`. Answers the account. The page stays where it is: open the page the test is about next.
 */
export type Login = (who?: User | NewUser) => Promise<User>;

/** Signs `user` in through the portal's sign-in form; the request context (a page's or a context's) keeps the cookie. */
export async function signInThroughForm(request: APIRequestContext, baseURL: string, user: User) {
  const response = await request.post("/login", { form: signInForm(user), headers: { Origin: new URL(baseURL).origin }, maxRedirects: 0 });
  expect(response.status(), `the portal's sign-in of ${user.email}`).toBe(302);
  const location = response.headers().location ?? "";
  expect(location, `the portal's sign-in of ${user.email} leads home, not to ${location} (x-served-by ${response.headers()["x-served-by"] ?? "-"})`).not.toMatch(/\/login/);
}

export const test = base.extend<{ login: Login }>({
  login: async ({ page, baseURL }, use) => {
    await use(async (who) => {
      const user = who && "email" in who ? who : await createUser(who);
      await signInThroughForm(page.request, baseURL!, user);
      return user;
    });
  },
});

export { expect };
