import { isRole, type Role } from '../engine/forge/permits.js';
import { hasStatus } from './github-error.js';
import type { GatewayRequest, Repo } from './request.js';

interface PermissionAnswer {
  permission?: string;
  role_name?: string;
  user?: { permissions?: { admin?: boolean; maintain?: boolean; push?: boolean; triage?: boolean; pull?: boolean } } | null;
}

/**
 * Someone's role on the repository, through GET /repos/{owner}/{repo}/collaborators/{username}/permission.
 *
 * GitHub's answer has three views of it: `role_name` (admin, maintain, write, triage, read, or
 * the name of a custom role), `user.permissions` (what the role allows, one flag per base
 * role) and `permission`, the legacy admin/write/read/none in which maintain reads as write
 * and triage as read. The first that is precise wins: a custom role counts as the base role
 * its flags show. Someone GitHub does not know on the repository (404) has none.
 */
export async function repositoryRole(request: GatewayRequest, repo: Repo, username: string): Promise<Role> {
  let data: PermissionAnswer;
  try {
    data = (await request('GET /repos/{owner}/{repo}/collaborators/{username}/permission', { ...repo, username })).data as PermissionAnswer;
  } catch (e) {
    if (hasStatus(e, 404)) return 'none';
    throw e;
  }
  if (data.role_name !== undefined && isRole(data.role_name)) return data.role_name;
  const flags = data.user?.permissions;
  if (flags) {
    if (flags.admin) return 'admin';
    if (flags.maintain) return 'maintain';
    if (flags.push) return 'write';
    if (flags.triage) return 'triage';
    if (flags.pull) return 'read';
  }
  return data.permission !== undefined && isRole(data.permission) ? data.permission : 'none';
}
