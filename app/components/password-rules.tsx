/**
 * The password rules, shown before the first try wherever a password is set (issue 21): identity §5's
 * (at least 8 characters; Password and Confirm Password equal), worded apart from its error messages
 * so that a message next to the field is not read twice. The Password input's aria-describedby names it.
 */
export function PasswordRules({ id }: { id: string }) {
  return (
    <div className="password-rules" id={id}>
      <p className="password-rules__title">Your password needs:</p>
      <ul>
        <li>At least 8 characters</li>
        <li>To be typed the same in Confirm Password</li>
      </ul>
    </div>
  );
}
