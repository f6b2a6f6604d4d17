import { Link } from "@remix-run/react";

/**
 * 'Cancel subscription' on every page (issue 22, §312k BGB): ending a renewal is a link away, signed in or
 * not. The public shell lists it among its footer links; the sign-in pages and the signed-in layout have
 * this small footer with just that link.
 */
export function CancelFooter({ className = "page-footer" }: { className?: string }) {
  return (
    <footer className={className}>
      <nav aria-label="Footer">
        <ul>
          <li>
            <Link to="/cancel">Cancel subscription</Link>
          </li>
        </ul>
      </nav>
    </footer>
  );
}
