import type { ESLint } from 'eslint';

export const LAYERS: Record<string, { may: string[]; why: string }>;
export const ENGINE_PACKAGES: string[];
export function areaOf(path: string): string | undefined;
export function forbidden(from: string, specifier: string): string | undefined;
export const layersPlugin: ESLint.Plugin;
