import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CONFIG_FILE, loadConfig, MemError, readRegularFile, type Vault } from '../../internal.js';

/**
 * What a request may set on the vault it creates (`mem serve --vaults`): its time zone and the
 * names its speakers are written with. The zone is checked by the body schema (as the config is).
 */
export interface VaultSettings {
  timezone?: string;
  user_name?: string;
  assistant_name?: string;
}

/** What a new vault starts from: the template's config (checked) and its persona notes. */
export interface VaultSeed {
  config?: Record<string, unknown>;
  files: Map<string, Buffer>;
}

/**
 * Reads a template vault: its `mem.config.json` validated by the config schema, and the regular
 * files under `persona/`. A symlink, FIFO, socket or device is skipped, never followed or opened:
 * the template must not hand a new user's vault a file from elsewhere on the server.
 */
export async function readTemplate(dir: string, onNotice?: (message: string) => void): Promise<VaultSeed> {
  try {
    return await readTemplateFiles(dir, onNotice);
  } catch (error) {
    // A reply never shows the server's paths: the template is named `<template>` in the error.
    const message = (error as Error).message.split(dir).join('<template>');
    throw new MemError(error instanceof MemError ? error.code : 'INVALID_CONFIG', message);
  }
}

async function readTemplateFiles(dir: string, onNotice?: (message: string) => void): Promise<VaultSeed> {
  const files = new Map<string, Buffer>();
  let config: Record<string, unknown> | undefined;
  let persona = 'persona';
  const configInfo = await lstat(join(dir, CONFIG_FILE)).catch(() => undefined);
  if (configInfo?.isFile()) {
    // loadConfig throws INVALID_CONFIG naming the key; the raw object is kept so that defaults
    // stay defaults in the new vault instead of being written out.
    persona = (await loadConfig(dir, onNotice)).layout.persona;
    config = JSON.parse((await readRegularFile(join(dir, CONFIG_FILE))).toString('utf8')) as Record<
      string,
      unknown
    >;
  } else if (configInfo) {
    onNotice?.(`mem: template ${CONFIG_FILE} is not a regular file; it is skipped`);
  }
  const walk = async (rel: string): Promise<void> => {
    const info = await lstat(join(dir, rel)).catch(() => undefined);
    if (!info?.isDirectory()) return;
    for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) files.set(path, await readRegularFile(join(dir, path)));
      else onNotice?.(`mem: template ${path} is not a regular file; it is skipped`);
    }
  };
  await walk(persona);
  return { config, files };
}

/** The seed's config with the request's settings over it: they win over the template's. */
export function withSettings(seed: VaultSeed, settings: VaultSettings | undefined): VaultSeed {
  if (!settings) return seed;
  const config: Record<string, unknown> = { ...(seed.config ?? {}) };
  if (settings.timezone !== undefined) config['timezone'] = settings.timezone;
  const speakers = { ...((config['speakers'] as Record<string, string> | undefined) ?? {}) };
  if (settings.user_name !== undefined) speakers['user'] = settings.user_name;
  if (settings.assistant_name !== undefined) speakers['assistant'] = settings.assistant_name;
  if (Object.keys(speakers).length > 0) config['speakers'] = speakers;
  return { ...seed, config };
}

/**
 * Settings sent to a vault that already exists must be the ones it has: a vault's config is never
 * rewritten by a request, and a difference is refused (409) rather than dropped without a word.
 */
export function checkSettings(vault: Vault, settings: VaultSettings | undefined): void {
  if (!settings) return;
  const differ: string[] = [];
  const have = {
    timezone: vault.config.timezone,
    user_name: vault.config.speakers['user'],
    assistant_name: vault.config.speakers['assistant'],
  };
  for (const key of ['timezone', 'user_name', 'assistant_name'] as const) {
    const want = settings[key];
    if (want !== undefined && want !== have[key])
      differ.push(
        `${key} ${JSON.stringify(want)} (the vault has ${have[key] === undefined ? 'none' : JSON.stringify(have[key])})`,
      );
  }
  if (differ.length > 0) {
    throw new MemError(
      'CONFLICT',
      `settings apply only when a request creates the vault, and this vault exists with other ones: ${differ.join('; ')}; its config is unchanged`,
    );
  }
}
