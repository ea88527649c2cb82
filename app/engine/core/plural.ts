/** A count with its noun: "1 phase", "2 phases", "1 dependency" (`many` when the plural is not the noun and "s"). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
