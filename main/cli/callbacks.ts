// CLI: `callbacks show|enable|disable|set`: a profile's callback listener, through the UI's settings
// service (main/desk/settings.ts), so the same schema checks the values and the same rules apply:
// loopback only unless a public URL is set, the path secret added to whatever URL the gateway is given.
import type { Command } from 'commander';
import type { CallbackSettings, SettingsView } from '../../contract/api';
import { announcedCallbackUrl } from '../desk/profile-engine';
import { callbackPath } from '../engine/callback-listener';
import type { Profile } from '../profiles/profile-schema';
import { CliUsageError, type CliDeps } from './deps';
import { intOption } from './shared';

interface ListenerOptions {
  host?: string;
  port?: number;
  /** A URL from --public-url, false from --no-public-url, absent when neither was given. */
  publicUrl?: string | false;
}

/** What the gateway is told: the public URL with the secret, or the loopback listener's (port known only when fixed). */
function urlForGateway(profile: Profile): string | null {
  if (!profile.callbackEnabled || !profile.callbackSecret) return null;
  const announced = announcedCallbackUrl(profile);
  if (announced) return announced;
  return profile.callbackPort === 0 ? null : `http://127.0.0.1:${profile.callbackPort}${callbackPath(profile.callbackSecret)}`;
}

function lines(profile: Profile, view: SettingsView): string[] {
  const c = view.callback;
  const l = view.callbackListener;
  const gatewayUrl = urlForGateway(profile);
  return [
    `Callbacks for ${profile.id}: ${c.enabled ? 'enabled' : 'disabled'}`,
    `  listen on   ${c.url ? c.host : '127.0.0.1 (loopback: no public URL set)'} port ${c.port === 0 ? '0 (a free one at each start)' : c.port}`,
    `  public URL  ${c.url ?? '(none)'}`,
    `  gateway is given  ${gatewayUrl ?? (c.enabled ? '(the loopback listener URL once it runs: the port is chosen at start)' : '(nothing: callbacks disabled)')}`,
    `  listener here  ${l.state}${l.boundTo ? ` on ${l.boundTo}` : ''}${l.message ? `: ${l.message}` : ''}`,
  ];
}

function addListenerOptions(command: Command): Command {
  return command
    .option('--host <host>', 'address to listen on (used only with a public URL; else 127.0.0.1)')
    .option('--port <port>', 'port to listen on (0: a free one at each start)', intOption('port'))
    .option('--public-url <url>', 'public base URL the gateway reaches this desk at, e.g. https://desk.example.com/hooks')
    .option('--no-public-url', 'remove the public URL: listen on loopback only');
}

export function registerCallbackCommands(program: Command, deps: CliDeps): void {
  const callbacks = program.command('callbacks').description("the profile's status-callback listener (the twin of Settings → Callback listener)");

  const show = async (view?: SettingsView) => {
    const desk = deps.desk();
    const shown = view ?? (await desk.call('settings', 'get', {}));
    const profile = deps.context().profiles.get(desk.profile.id);
    deps.print(lines(profile, shown), { profileId: profile.id, callback: shown.callback, gatewayUrl: urlForGateway(profile), listener: shown.callbackListener });
  };

  const change = async (patch: Partial<CallbackSettings>) => {
    const view = await deps.desk().call('settings', 'update', { callback: patch });
    await show(view);
  };

  const patchFrom = (o: ListenerOptions): Partial<CallbackSettings> => ({
    ...(o.host !== undefined ? { host: o.host } : {}),
    ...(o.port !== undefined ? { port: o.port } : {}),
    ...(typeof o.publicUrl === 'string' ? { url: o.publicUrl } : o.publicUrl === false ? { url: null } : {}),
  });

  callbacks
    .command('show')
    .description('show the callback settings and the URL the gateway is given')
    .action(() => show());

  addListenerOptions(callbacks.command('enable').description('listen for callbacks (optionally setting where)')).action((o: ListenerOptions) =>
    change({ enabled: true, ...patchFrom(o) }),
  );

  callbacks
    .command('disable')
    .description('stop listening for callbacks; status is still polled')
    .action(() => change({ enabled: false }));

  addListenerOptions(callbacks.command('set').description('change where the listener listens or the public URL, leaving it on or off')).action(
    (o: ListenerOptions) => {
      const patch = patchFrom(o);
      if (Object.keys(patch).length === 0) throw new CliUsageError('nothing to change: give --host, --port, --public-url or --no-public-url');
      return change(patch);
    },
  );
}
