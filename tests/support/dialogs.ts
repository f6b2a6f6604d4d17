import { expect, type Locator, type Page } from "@playwright/test";

/** Whether the focused element is inside `dialog`. */
function focusIsIn(dialog: Locator) {
  return dialog.evaluate((element) => element.contains(document.activeElement));
}

/**
 * A keyboard-only pass through a modal dialog that JavaScript made real (issue 21): focus is in it,
 * Tab and Shift+Tab never leave it, Escape closes it and focus goes back to `opener` (when given).
 */
export async function expectKeyboardModal(page: Page, dialog: Locator, { opener, tabs = 12 }: { opener?: Locator; tabs?: number } = {}) {
  await expect(dialog).toBeVisible();
  // A navigation under way (a revalidation) destroys the context: asked again, not failed.
  await expect.poll(() => dialog.evaluate((element) => element.matches(":modal")).catch(() => false)).toBe(true);
  await expect.poll(() => focusIsIn(dialog)).toBe(true);
  for (let i = 0; i < tabs; i += 1) {
    await page.keyboard.press("Tab");
    expect(await focusIsIn(dialog), `Tab ${i + 1} stays in the dialog`).toBe(true);
  }
  for (let i = 0; i < 3; i += 1) {
    await page.keyboard.press("Shift+Tab");
    expect(await focusIsIn(dialog), `Shift+Tab ${i + 1} stays in the dialog`).toBe(true);
  }
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  if (opener) await expect(opener).toBeFocused();
}
