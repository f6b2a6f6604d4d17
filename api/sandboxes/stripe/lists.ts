/** One page of a newest-first list, as Stripe's cursor pagination cuts it (default limit 10). */
export function paginate<T extends { id: string }>(
  items: readonly T[],
  params: { limit?: number | undefined; starting_after?: string | undefined; ending_before?: string | undefined },
): { data: T[]; has_more: boolean } {
  const limit = params.limit ?? 10;
  if (params.ending_before) {
    const end = items.findIndex((item) => item.id === params.ending_before);
    const before = end < 0 ? [] : items.slice(0, end);
    return { data: before.slice(Math.max(0, before.length - limit)), has_more: before.length > limit };
  }
  let start = 0;
  if (params.starting_after) {
    const at = items.findIndex((item) => item.id === params.starting_after);
    start = at < 0 ? items.length : at + 1;
  }
  const rest = items.slice(start);
  return { data: rest.slice(0, limit), has_more: rest.length > limit };
}
