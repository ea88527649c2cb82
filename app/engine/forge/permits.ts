/**
 * Repository roles from least to most (GitHub's base roles; `none` for someone without any).
 * Custom roles are built on one of these, and are compared as their base role.
 */
export const ROLE_ORDER = ['none', 'read', 'triage', 'write', 'maintain', 'admin'] as const;
export type Role = (typeof ROLE_ORDER)[number];

export function isRole(name: string): name is Role {
  return (ROLE_ORDER as readonly string[]).includes(name);
}

/** Does someone with role `have` meet the least role `need`? */
export function permits(have: Role, need: Role): boolean {
  return ROLE_ORDER.indexOf(have) >= ROLE_ORDER.indexOf(need);
}
