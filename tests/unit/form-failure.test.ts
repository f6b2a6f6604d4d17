import { describe, expect, it } from "vitest";
import { LoginSchema } from "~/schemas/login";
import { OtpSchema } from "~/schemas/identity";
import { codeErrorAt, formFailure, parseSubmission } from "~/utils/forms.server";

// Issue 21: a refused form's message goes into conform's result too, so the page keeps it by the form
// (its alert, or the field it is about) after the toast has closed; secrets are still not echoed.

function form(entries: Record<string, string>) {
  const data = new FormData();
  for (const [key, value] of Object.entries(entries)) data.set(key, value);
  return data;
}

type Answer = { data: { result: { error?: Record<string, string[]>; initialValue?: Record<string, unknown> }; serverError: string | null; serverErrorInPage: boolean } };

describe("formFailure", () => {
  it('with errorAt "" the message is the form\'s own error, and the password is not sent back', () => {
    const submission = parseSubmission(form({ email: "a@b.co", password: "wrong-password" }), LoginSchema);
    const answer = formFailure("sign-in", submission, "These credentials do not match our records.", 401, { errorAt: "" }) as unknown as Answer;
    expect(answer.data.result.error).toEqual({ "": ["These credentials do not match our records."] });
    expect(answer.data.result.initialValue).toEqual({ email: "a@b.co" });
    expect(answer.data.serverError).toBe("These credentials do not match our records.");
    expect(answer.data.serverErrorInPage).toBe(true);
  });

  it("with a field name the message is that field's error", () => {
    const submission = parseSubmission(form({ code: "123456" }), OtpSchema);
    const answer = formFailure("verify", submission, "Invalid verification code", 422, { errorAt: "code" }) as unknown as Answer;
    expect(answer.data.result.error).toEqual({ code: ["Invalid verification code"] });
    expect(answer.data.result.initialValue).toEqual({});
  });

  it("without errorAt the message is only the toast's", () => {
    const submission = parseSubmission(form({ code: "123456" }), OtpSchema);
    const answer = formFailure("verify", submission, "Invalid verification code", 422) as unknown as Answer;
    expect(answer.data.result.error).toBeUndefined();
    expect(answer.data.serverErrorInPage).toBe(false);
  });
});

describe("codeErrorAt", () => {
  it("puts a refused code by its field and anything else in the form's alert", () => {
    expect(codeErrorAt({ code: "code_invalid" }, "code")).toBe("code");
    expect(codeErrorAt({ code: "code_expired" }, "verification_code")).toBe("verification_code");
    expect(codeErrorAt({ code: "too_many_attempts" }, "code")).toBe("code");
    expect(codeErrorAt({ code: "rate_limited" }, "code")).toBe("");
    expect(codeErrorAt({ code: null }, "code")).toBe("");
  });
});
