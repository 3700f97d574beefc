// Binds the profile a contract method acts on. The services take it explicitly; the renderer never
// sends one (a few methods take an optional profileId), so the IPC adapter binds the active profile
// and the CLI the one chosen with --profile.
import type { Area, Verb } from '../../contract/api';
import type { AppContext } from '../context';
import type { Profile } from '../profiles/profile-schema';
import type { AreaArgs, AreaResult, DeskServices } from './services';
import { CodedError } from '../domain/coded-error';

/** Methods that act on no profile. */
export const PROFILE_FREE = {
  profiles: ['list', 'create', 'createDemo', 'use', 'update', 'remove'],
  batches: ['template'],
  app: ['info', 'connectionState', 'openDataFolder', 'chooseFile', 'fileDropped'],
} as const;

/** Methods that answer without a profile too (they get null). */
export const PROFILE_OPTIONAL = { app: ['rateBudget'] } as const;

type Listed<T, A> = A extends keyof T ? (T[A] extends readonly (infer V)[] ? V : never) : never;

/** One contract method as a service implements it: with the profile first unless it needs none. */
export type ProfileMethod<A extends Area, V extends Verb<A>> = V extends Listed<typeof PROFILE_FREE, A>
  ? (args: AreaArgs<A, V>) => Promise<AreaResult<A, V>>
  : V extends Listed<typeof PROFILE_OPTIONAL, A>
    ? (profile: Profile | null, args: AreaArgs<A, V>) => Promise<AreaResult<A, V>>
    : (profile: Profile, args: AreaArgs<A, V>) => Promise<AreaResult<A, V>>;

export type ProfileAreaService<A extends Area> = { [V in Verb<A>]: ProfileMethod<A, V> };
export type ProfileServices = { [A in Area]: Partial<ProfileAreaService<A>> };

export class NoProfileError extends CodedError<'NO_PROFILE'> {
  constructor() {
    super('NO_PROFILE', 'No profile is selected: create a Demo profile or add a real one first.');
  }
}

/** The profile the app has selected, if any. */
export function activeProfileOf(ctx: AppContext): () => Profile | null {
  return () => {
    const id = ctx.profiles.currentId();
    return (id ? ctx.profiles.find(id) : undefined) ?? null;
  };
}

type AnyMethod = (...args: unknown[]) => Promise<unknown>;

const listed = (table: Partial<Record<Area, readonly string[]>>, area: Area, verb: string) => table[area]?.includes(verb) === true;

/** The contract-shaped services, each method given `current()` (or the profileId its arguments name). */
export function bindProfile(services: ProfileServices, ctx: AppContext, current: () => Profile | null): DeskServices {
  const named = (args: unknown): Profile | null => {
    const id = args && typeof args === 'object' ? (args as { profileId?: unknown }).profileId : undefined;
    return typeof id === 'string' && id ? ctx.profiles.get(id) : null;
  };
  const required = (args: unknown): Profile => {
    const profile = named(args) ?? current();
    if (!profile) throw new NoProfileError();
    return profile;
  };
  const bound: Record<string, Record<string, AnyMethod>> = {};
  for (const area of Object.keys(services) as Area[]) {
    const impl = services[area] as Record<string, AnyMethod | undefined>;
    const out: Record<string, AnyMethod> = {};
    for (const verb of Object.keys(impl)) {
      const method = impl[verb];
      if (!method) continue;
      const fn = method.bind(impl);
      if (listed(PROFILE_FREE, area, verb)) out[verb] = async (args) => fn(args);
      else if (listed(PROFILE_OPTIONAL, area, verb)) out[verb] = async (args) => fn(named(args) ?? current(), args);
      else out[verb] = async (args) => fn(required(args), args);
    }
    bound[area] = out;
  }
  return bound as unknown as DeskServices;
}

/** For IPC: every method acts on the profile the app has selected (NO_PROFILE when there is none). */
export function bindActiveProfile(services: ProfileServices, ctx: AppContext): DeskServices {
  return bindProfile(services, ctx, activeProfileOf(ctx));
}
