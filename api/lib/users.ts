import type { User } from "../db/schema";

/** The user object every endpoint returns. */
export interface PublicUser {
  id: number;
  email: string;
  name: string | null;
  has_password: boolean;
  email_verified_at: string | null;
  created_at: string;
}

export function publicUser(
  user: Pick<User, "id" | "email" | "name" | "password_hash" | "email_verified_at" | "created_at">,
): PublicUser {
  return {
    id: Number(user.id),
    email: user.email,
    name: user.name,
    has_password: Boolean(user.password_hash),
    email_verified_at: user.email_verified_at,
    created_at: user.created_at,
  };
}
