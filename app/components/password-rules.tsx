/**
 * The password rules, shown before the first try wherever a password is set (issue 21), in the words
 * of identity §5's messages. The Password input names this list in its aria-describedby.
 */
export function PasswordRules({ id }: { id: string }) {
  return (
    <div className="password-rules" id={id}>
      <p className="password-rules__title">Password rules:</p>
      <ul>
        <li>Password must be at least 8 characters.</li>
        <li>Password and Confirm Password must match.</li>
      </ul>
    </div>
  );
}
