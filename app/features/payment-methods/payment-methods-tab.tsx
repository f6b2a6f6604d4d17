import { Form, Link, useActionData } from "@remix-run/react";
import type { TFunction } from "i18next";
import { useTranslation } from "react-i18next";
import { ModalDialog } from "~/components/modal-dialog";
import { AddCardForm } from "./add-card-form";
import { PAYMENT_METHOD_MESSAGES, TAB_PATH, tabHref } from "./messages";
import type { CardView, PaymentMethodsState } from "./payment-methods.server";
import { brandKey, brandName } from "~/utils/cards";

// The 'Payment Method' tab (commerce §2). Every action is a plain form post to /billing?tab=payment-method
// (the billing route's action delegates to paymentMethodsAction); delete and edit are server-rendered
// steps reached by links (?delete=ID, ?edit=ID), so everything but the inline card entry works without
// JavaScript. The default card is the one that pays the card subscription's renewals (one setting, issue
// 21): the card says so itself, and 'Set Default' on another card moves the renewals to it.

type ActionErrors = { paymentMethodsForm?: string; id?: number; errors?: Record<string, string> };

export function PaymentMethodsTab({ state }: { state: PaymentMethodsState }) {
  const { t } = useTranslation("billing");
  const { cards, pagination } = state;
  const page = pagination.current_page;
  const deleting = cards.find((card) => card.id === state.confirmDelete && !card.is_default) ?? null;
  return (
    <section className="payment-methods" aria-labelledby="payment-methods-heading">
      <h2 id="payment-methods-heading">{t("billing.tabs.paymentMethod")}</h2>
      {!state.paysByCard ? (
        <p className="payment-methods__note">
          {cards.length ? t("billing.paymentMethods.notPaidByCardWithCards") : t("billing.paymentMethods.notPaidByCard")}
        </p>
      ) : null}
      {state.cardSubscription && pagination.total > 1 ? (
        <p className="payment-methods__note" id="renewals-note">
          {t("billing.paymentMethods.renewalsNote", { plan: state.cardSubscription.title })}
        </p>
      ) : null}
      {state.cardsFailed ? (
        <p className="form-error" role="alert">
          {t(PAYMENT_METHOD_MESSAGES.fetchFailed)}
        </p>
      ) : cards.length === 0 ? (
        <p className="payment-methods__empty">{t(PAYMENT_METHOD_MESSAGES.empty)}</p>
      ) : (
        <ul className="payment-methods__list" aria-label={t("billing.paymentMethods.listLabel")}>
          {cards.map((card) => (
            <CardItem key={card.id} card={card} state={state} page={page} />
          ))}
        </ul>
      )}
      {pagination.total > pagination.per_page ? <Pagination current={page} last={pagination.last_page} /> : null}
      <section className="payment-methods__add-section" aria-labelledby="add-card-heading">
        <h3 id="add-card-heading">{t("billing.paymentMethods.addCard")}</h3>
        <AddCardForm gateway={state.gateway} />
      </section>
      {deleting ? <ConfirmDelete card={deleting} label={cardLabel(deleting, t)} page={page} /> : null}
    </section>
  );
}

/** 'Visa ending 4242'. */
function cardLabel(card: CardView, t: TFunction): string {
  return t("billing.paymentMethods.cardLabel", { brand: brandName(card.card_brand, t), last4: card.card_number.slice(-4) });
}

function CardItem({ card, state, page }: { card: CardView; state: PaymentMethodsState; page: number }) {
  const { t } = useTranslation("billing");
  const editing = state.editing === card.id;
  const label = cardLabel(card, t);
  // Only while a card subscription renews does the default card pay anything: then it says so.
  const paysRenewals = card.is_default && state.cardSubscription !== null;
  return (
    <li className={`payment-card${card.is_default ? " payment-card--default" : ""}`} aria-label={label}>
      <div className="payment-card__summary">
        <BrandIcon brand={card.card_brand} />
        <span className="payment-card__number">{card.card_number}</span>
        {card.is_default ? <span className="badge payment-card__badge">{t("billing.paymentMethods.default")}</span> : null}
      </div>
      {paysRenewals ? <p className="payment-card__renewals">{t("billing.paymentMethods.paysRenewals")}</p> : null}
      <dl className="payment-card__details">
        <div>
          <dt>{t("billing.paymentMethods.expires")}</dt>
          <dd>{card.card_exp}</dd>
        </div>
        <div>
          <dt>{t("billing.paymentMethods.addedOn")}</dt>
          <dd>{card.added}</dd>
        </div>
        {card.billing_name ? (
          <div>
            <dt>{t("billing.paymentMethods.cardholder")}</dt>
            <dd>{card.billing_name}</dd>
          </div>
        ) : null}
      </dl>
      <div className="payment-card__actions">
        {!card.is_default ? (
          <Form method="post" action={TAB_PATH}>
            <input type="hidden" name="intent" value="set-default" />
            <input type="hidden" name="id" value={card.id} />
            <input type="hidden" name="page" value={page} />
            <button type="submit" className="button" aria-describedby={state.cardSubscription ? "renewals-note" : undefined}>
              {t("billing.paymentMethods.setDefault")}
            </button>
          </Form>
        ) : null}
        <Link className="button" to={tabHref({ page, edit: card.id })} aria-label={t("billing.paymentMethods.editLabel", { card: label })}>
          {t("billing.paymentMethods.edit")}
        </Link>
        {card.is_default ? (
          <p className="muted payment-card__hint">{t("billing.paymentMethods.defaultNotDeletable")}</p>
        ) : (
          <Link className="button button--danger" to={tabHref({ page, delete: card.id })} aria-label={t("billing.paymentMethods.deleteLabel", { card: label })}>
            {t("billing.paymentMethods.delete")}
          </Link>
        )}
      </div>
      {editing ? <EditCard card={card} label={label} page={page} /> : null}
    </li>
  );
}

/** The delete step (?delete=ID): a server-rendered dialog, a real modal with JavaScript; Cancel and Escape go back to the list. */
function ConfirmDelete({ card, label, page }: { card: CardView; label: string; page: number }) {
  const { t } = useTranslation("billing");
  return (
    <ModalDialog labelledBy="delete-card-title" cancelTo={tabHref({ page })}>
      <header className="dialog-header">
        <h3 id="delete-card-title">{t("billing.paymentMethods.deleteTitle", { card: label })}</h3>
      </header>
      <p>{t("billing.paymentMethods.deleteText")}</p>
      <Form method="post" action={TAB_PATH} className="billing-dialog-actions">
        <input type="hidden" name="intent" value="delete-card" />
        <input type="hidden" name="id" value={card.id} />
        <input type="hidden" name="page" value={page} />
        <Link to={tabHref({ page })} className="button" replace>
          {t("billing.paymentMethods.cancel")}
        </Link>
        <button type="submit" className="button button--danger">
          {t("billing.paymentMethods.confirmDelete")}
        </button>
      </Form>
    </ModalDialog>
  );
}

function EditCard({ card, label, page }: { card: CardView; label: string; page: number }) {
  const { t } = useTranslation("billing");
  const actionData = useActionData<ActionErrors>();
  const errors = actionData?.paymentMethodsForm === "update-card" && actionData.id === card.id ? (actionData.errors ?? {}) : {};
  const expiry = `${String(card.card_exp_month).padStart(2, "0")} / ${String(card.card_exp_year % 100).padStart(2, "0")}`;
  return (
    <Form method="post" action={TAB_PATH} className="payment-card__edit" aria-label={t("billing.paymentMethods.editLabel", { card: label })}>
      <input type="hidden" name="intent" value="update-card" />
      <input type="hidden" name="id" value={card.id} />
      <input type="hidden" name="page" value={page} />
      <div className="field">
        <label htmlFor={`edit-expiry-${card.id}`}>{t("billing.paymentMethods.expiry")}</label>
        <input id={`edit-expiry-${card.id}`} name="expiry" defaultValue={expiry} inputMode="numeric" aria-invalid={errors.expiry ? true : undefined} aria-describedby={`edit-expiry-${card.id}-error`} />
        <p className="field-error" id={`edit-expiry-${card.id}-error`}>
          {errors.expiry ? t(errors.expiry) : ""}
        </p>
      </div>
      <div className="field">
        <label htmlFor={`edit-name-${card.id}`}>{t("billing.paymentMethods.cardholderName")}</label>
        <input id={`edit-name-${card.id}`} name="billing_name" defaultValue={card.billing_name ?? ""} aria-invalid={errors.name ? true : undefined} aria-describedby={`edit-name-${card.id}-error`} />
        <p className="field-error" id={`edit-name-${card.id}-error`}>
          {errors.name ? t(errors.name) : ""}
        </p>
      </div>
      <button type="submit" className="button button--primary">
        {t("billing.paymentMethods.saveCard")}
      </button>
      <Link to={tabHref({ page })} className="button">
        {t("billing.paymentMethods.cancel")}
      </Link>
    </Form>
  );
}

function Pagination({ current, last }: { current: number; last: number }) {
  const { t } = useTranslation("billing");
  const pages = Array.from({ length: last }, (_, i) => i + 1);
  return (
    <nav className="pagination" aria-label={t("billing.paymentMethods.pagesLabel")}>
      {current > 1 ? <Link to={tabHref({ page: current - 1 })}>{t("billing.pagination.previous")}</Link> : null}
      {pages.map((p) =>
        p === current ? (
          <span key={p} aria-current="page" className="pagination__current">
            {p}
          </span>
        ) : (
          <Link key={p} to={tabHref({ page: p })} aria-label={t("billing.pagination.page", { page: p })}>
            {p}
          </Link>
        ),
      )}
      {current < last ? <Link to={tabHref({ page: current + 1 })}>{t("billing.pagination.next")}</Link> : null}
    </nav>
  );
}

/** The brands' marks as their icons write them (logos: the same in every language). */
const BRAND_MARKS: Record<string, string> = { visa: "VISA", amex: "AMEX" };

/** Commerce §9: brand icons for visa, master and amex; a generic card otherwise. */
function BrandIcon({ brand }: { brand: string }) {
  const { t } = useTranslation("billing");
  const key = brandKey(brand);
  return (
    <svg className={`brand-icon brand-icon--${key}`} role="img" aria-label={brandName(brand, t)} viewBox="0 0 48 32" width="48" height="32">
      <rect width="48" height="32" rx="4" className="brand-icon__bg" />
      {key === "master" ? (
        <>
          <circle cx="19" cy="16" r="8" className="brand-icon__red" />
          <circle cx="29" cy="16" r="8" className="brand-icon__orange" />
        </>
      ) : key === "card" ? (
        <rect x="6" y="10" width="36" height="5" className="brand-icon__stripe" />
      ) : (
        <text x="24" y="20" textAnchor="middle" className="brand-icon__text">
          {BRAND_MARKS[key]}
        </text>
      )}
    </svg>
  );
}
