/**
 * `provd hooks install | uninstall | print`, run as a user would, on real settings files in
 * temporary homes: every agent's file where the agent reads it, the user's own hooks and settings
 * kept byte for byte, no duplicate on a second install, exactly provd's entries removed, nothing
 * written by print, a malformed file refused untouched.
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { hookClientPath } from '../../src/agents/hook-command.js';
import { blankComments } from '../../src/agents/install/json-text.js';
import { packageRoot } from '../../src/shared/package-root.js';
import { runCli, type CliRun } from '../support/cli.js';
import { useTempDir } from '../support/temp-dir.js';

type Agent = 'claude' | 'codex' | 'gemini';
const agents: Agent[] = ['claude', 'codex', 'gemini'];

const events: Record<Agent, string[]> = {
  claude: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'Stop',
    'SessionEnd',
  ],
  codex: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'],
  gemini: ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent', 'SessionEnd'],
};
const timeouts: Record<Agent, number> = { claude: 10, codex: 10, gemini: 10_000 };

/** Where each agent reads its user-scope hooks, under `home` (no agent variable set). */
function settingsFile(agent: Agent, home: string): string {
  if (agent === 'claude') return join(home, '.claude', 'settings.json');
  if (agent === 'codex') return join(home, '.codex', 'hooks.json');
  return join(home, '.gemini', 'settings.json');
}

/** Runs provd with `home` as HOME and none of the agents' own home variables. */
function provd(
  args: string[],
  home: string,
  extra: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliRun> {
  return runCli(args, {
    cwd: extra.cwd ?? home,
    env: { HOME: home, CLAUDE_CONFIG_DIR: '', CODEX_HOME: '', GEMINI_CLI_HOME: '', ...extra.env },
  });
}

function readJson(
  file: string,
  comments = false,
): { hooks?: Record<string, unknown[]> } & Record<string, unknown> {
  const text = readFileSync(file, 'utf8');
  return JSON.parse(comments ? blankComments(text) : text) as { hooks?: Record<string, unknown[]> };
}

/** provd's hook commands in a settings object, by event. */
function provdCommands(settings: { hooks?: Record<string, unknown[]> }): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(settings.hooks ?? {}).map(([event, groups]) => [
      event,
      (groups as { hooks: { command: string }[] }[])
        .flatMap((group) => group.hooks)
        .map((hook) => hook.command)
        .filter((command) => command.includes('provd-hook')),
    ]),
  );
}

/** Every file under `dir`, recursively, with its bytes. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[path] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return files;
}

/** A user's settings, written their own way (4-space indent, keys provd never touches). */
function usersOwn(agent: Agent): string {
  const pre = agent === 'gemini' ? 'BeforeTool' : 'PreToolUse';
  const other = agent === 'gemini' ? 'Notification' : 'Notification';
  return `{
    "model": "their-model",
    // their comment
    "hooks": {
        "${other}": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}],
        "${pre}": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/their-guard"}]}
        ]
    },
    "theme": "dark"
}
`.replace(agent === 'gemini' ? '' : '    // their comment\n', '');
}

describe('provd hooks install | uninstall | print', function () {
  this.timeout(120_000);
  const temp = useTempDir('provd-hooks-install-');

  for (const agent of agents) {
    it(`${agent}: installs into an empty home, where the agent reads it, one hook per event`, async function () {
      const home = temp.path;
      const run = await provd(['hooks', 'install', '--agent', agent], home);
      assert.equal(run.code, 0, run.stderr);
      const file = settingsFile(agent, home);
      assert.match(run.stdout, new RegExp(`wrote ${file}: provd's hook on ${events[agent].join(', ')}`));
      assert.match(run.stdout, agent === 'gemini' ? /timeout: 10000 ms per hook/ : /timeout: 10 s per hook/);
      assert.match(run.stdout, /backup: none \(there was no such file\)/);
      assert.equal(/warning: the hook client is not built/.test(run.stdout), !existsSync(hookClientPath()));
      const settings = readJson(file);
      assert.deepEqual(Object.keys(settings.hooks ?? {}), events[agent]);
      for (const event of events[agent])
        assert.deepEqual(settings.hooks![event], [
          {
            matcher: '*',
            hooks: [{ type: 'command', command: `${hookClientPath()} ${agent}`, timeout: timeouts[agent] }],
          },
        ]);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      if (agent === 'codex') {
        const config = join(home, '.codex', 'config.toml');
        assert.deepEqual(JSON.parse(JSON.stringify(parseToml(readFileSync(config, 'utf8')))), {
          features: { hooks: true },
        });
        assert.match(run.stdout, /config\.toml: \[features\] hooks = true/);
        assert.match(run.stdout, /note: Codex runs a new or changed hook only once you trust it/);
      }
    });

    it(`${agent}: keeps the user's own hooks and settings byte for byte, twice installed is once`, async function () {
      const home = temp.path;
      const file = settingsFile(agent, home);
      mkdirSync(dirname(file), { recursive: true });
      const own = usersOwn(agent);
      writeFileSync(file, own, { mode: 0o640 });
      chmodSync(file, 0o640);
      const first = await provd(['hooks', 'install', '--agent', agent], home);
      assert.equal(first.code, 0, first.stderr);
      const installed = readFileSync(file, 'utf8');
      // what provd did not touch is there as the user wrote it
      const notification = own.split('\n').find((line) => line.includes('notify-send'))!;
      assert.ok(installed.includes(notification), installed);
      assert.ok(installed.includes('"model": "their-model",\n'), installed);
      assert.ok(installed.endsWith('    "theme": "dark"\n}\n'), installed);
      if (agent === 'gemini') assert.ok(installed.includes('    // their comment\n'), installed);
      const pre = agent === 'gemini' ? 'BeforeTool' : 'PreToolUse';
      const settings = readJson(file, agent === 'gemini');
      assert.deepEqual(settings.hooks![pre]![0], {
        matcher: 'Bash',
        hooks: [{ type: 'command', command: '/usr/local/bin/their-guard' }],
      });
      assert.deepEqual(provdCommands(settings)[pre], [`${hookClientPath()} ${agent}`]);
      assert.equal(statSync(file).mode & 0o777, 0o640, 'the file keeps its mode');
      assert.equal(readFileSync(`${file}.provd-backup`, 'utf8'), own);
      assert.match(first.stdout, new RegExp(`backup: ${file}\\.provd-backup`));

      const second = await provd(['hooks', 'install', '--agent', agent], home);
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stdout, /provd's hooks are already installed, nothing changed/);
      assert.equal(readFileSync(file, 'utf8'), installed);
      assert.equal(
        readFileSync(`${file}.provd-backup`, 'utf8'),
        own,
        'a later install never overwrites the backup',
      );

      // nothing else changed since install: uninstall puts the user's bytes back
      const removed = await provd(['hooks', 'uninstall', '--agent', agent], home);
      assert.equal(removed.code, 0, removed.stderr);
      assert.match(removed.stdout, new RegExp(`removed ${events[agent].length} provd hooks`));
      assert.match(removed.stdout, /restored .* from .*\.provd-backup/);
      assert.equal(readFileSync(file, 'utf8'), own);
      assert.equal(existsSync(`${file}.provd-backup`), false);
      assert.equal(statSync(file).mode & 0o777, 0o640);
    });

    it(`${agent}: replaces an older provd hook rather than adding a second`, async function () {
      const home = temp.path;
      const file = settingsFile(agent, home);
      mkdirSync(dirname(file), { recursive: true });
      const old = {
        type: 'command',
        command: `/old/clone/native/build/Release/provd-hook ${agent}`,
        timeout: 60,
      };
      const theirs = { type: 'command', command: 'their-audit' };
      // an old provd hook alone in one group, and beside the user's own hook in another
      writeFileSync(
        file,
        JSON.stringify({
          hooks: {
            [events[agent][0]!]: [{ matcher: '*', hooks: [old] }],
            Legacy: [{ matcher: '*', hooks: [theirs, old] }],
          },
        }),
      );
      const run = await provd(['hooks', 'install', '--agent', agent], home);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /replacing 2 older provd hooks/);
      const settings = readJson(file);
      const commands = provdCommands(settings);
      for (const event of events[agent])
        assert.deepEqual(commands[event], [`${hookClientPath()} ${agent}`], event);
      assert.deepEqual(settings.hooks!['Legacy'], [{ matcher: '*', hooks: [theirs] }]);
    });

    it(`${agent}: uninstall removes exactly provd's hooks, keeps a hook added after install, and the backup`, async function () {
      const home = temp.path;
      const file = settingsFile(agent, home);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(
        file,
        '{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "before"}]}]}}\n',
      );
      assert.equal((await provd(['hooks', 'install', '--agent', agent], home)).code, 0);
      // the user adds a hook of their own after install
      const settings = readJson(file);
      const added = { matcher: '*', hooks: [{ type: 'command', command: 'added-after' }] };
      const pre = agent === 'gemini' ? 'BeforeTool' : 'PreToolUse';
      settings.hooks![pre]!.push(added);
      writeFileSync(file, JSON.stringify(settings, null, 2));
      const run = await provd(['hooks', 'uninstall', '--agent', agent, '--json'], home);
      assert.equal(run.code, 0, run.stderr);
      const body = JSON.parse(run.stdout) as {
        provd_hooks_before: number;
        provd_hooks_after: number;
        files: { restored: boolean; backup: string }[];
      };
      assert.equal(body.provd_hooks_before, events[agent].length);
      assert.equal(body.provd_hooks_after, 0);
      assert.equal(body.files[0]!.restored, false);
      assert.equal(body.files[0]!.backup, `${file}.provd-backup`);
      assert.deepEqual(readJson(file), {
        hooks: {
          SessionEnd: [{ hooks: [{ type: 'command', command: 'before' }] }],
          [pre]: [added],
        },
      });
      assert.ok(
        existsSync(`${file}.provd-backup`),
        'the backup stays while the file holds changes of its own',
      );
      const text = await provd(['hooks', 'uninstall', '--agent', agent], home);
      assert.match(text.stdout, /no provd hooks, nothing changed/);
    });

    it(`${agent}: print writes nothing and shows the whole file install would write`, async function () {
      const home = temp.path;
      const run = await provd(['hooks', 'print', '--agent', agent, '--socket', 'run/hooks.sock'], home);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(snapshot(home), {}, 'print wrote nothing');
      const command = `${hookClientPath()} ${agent} --socket ${join(home, 'run', 'hooks.sock')}`;
      const hooksText = agent === 'codex' ? run.stdout.split(/^==> .* <==\n/m)[1]! : run.stdout;
      const printed = JSON.parse(hooksText) as { hooks: Record<string, unknown[]> };
      assert.deepEqual(Object.keys(printed.hooks), events[agent]);
      assert.deepEqual(provdCommands(printed)[events[agent][0]!], [command]);
      if (agent === 'codex') {
        assert.match(run.stdout, new RegExp(`^==> ${join(home, '.codex', 'hooks.json')} <==\n`));
        assert.match(
          run.stdout,
          new RegExp(`==> ${join(home, '.codex', 'config.toml')} <==\n\\[features\\]\nhooks = true\n$`),
        );
      }
      const dry = await provd(['hooks', 'install', '--agent', agent, '--dry-run'], home);
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, /^would write /);
      assert.deepEqual(snapshot(home), {}, 'install --dry-run wrote nothing');
    });

    it(`${agent}: refuses a settings file that is not JSON, naming its line, and leaves it untouched`, async function () {
      const home = temp.path;
      const file = settingsFile(agent, home);
      mkdirSync(dirname(file), { recursive: true });
      const broken = '{\n  "hooks": {},\n  "model": \n}\n';
      writeFileSync(file, broken);
      for (const command of ['install', 'uninstall', 'print']) {
        const run = await provd(['hooks', command, '--agent', agent], home);
        assert.equal(run.code, 1, `${command}: ${run.stderr}`);
        assert.match(
          run.stderr,
          new RegExp(`^provd: PROVD_ERR_HOOKS_SETTINGS: ${file}:4: .*\\(left untouched\\)\n$`),
        );
        assert.equal(run.stdout, '');
        assert.equal(readFileSync(file, 'utf8'), broken);
        assert.deepEqual(Object.keys(snapshot(home)), [file], `${command} wrote nothing`);
      }
    });

    it(`${agent}: --project writes the project's settings, not the user's`, async function () {
      const home = join(temp.path, 'home');
      const project = join(temp.path, 'project');
      mkdirSync(home);
      mkdirSync(project);
      const run = await provd(['hooks', 'install', '--agent', agent, '--project'], home, { cwd: project });
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(snapshot(home), {});
      const file = join(project, `.${agent}`, agent === 'codex' ? 'hooks.json' : 'settings.json');
      assert.deepEqual(Object.keys(readJson(file).hooks ?? {}), events[agent]);
      const removed = await provd(['hooks', 'uninstall', '--agent', agent, '--project'], home, {
        cwd: project,
      });
      assert.equal(removed.code, 0, removed.stderr);
      assert.deepEqual(readJson(file), {});
      assert.equal(existsSync(`${file}.provd-backup`), false, 'uninstall makes no backup');
    });
  }

  it("honours each agent's own home variable: CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME", async function () {
    const home = temp.path;
    const env = {
      CLAUDE_CONFIG_DIR: join(home, 'claude-config'),
      CODEX_HOME: join(home, 'codex-home'),
      GEMINI_CLI_HOME: join(home, 'gemini-home'),
    };
    for (const agent of agents) {
      const run = await provd(['hooks', 'install', '--agent', agent], home, { env });
      assert.equal(run.code, 0, run.stderr);
    }
    assert.deepEqual(Object.keys(snapshot(home)).sort(), [
      join(home, 'claude-config', 'settings.json'),
      join(home, 'codex-home', 'config.toml'),
      join(home, 'codex-home', 'hooks.json'),
      join(home, 'gemini-home', '.gemini', 'settings.json'),
    ]);
  });

  it("codex: turns [features] hooks on in the user's config.toml, every other line kept; refuses a config.toml that is not TOML", async function () {
    const home = temp.path;
    const config = join(home, '.codex', 'config.toml');
    mkdirSync(dirname(config), { recursive: true });
    const own =
      'model = "gpt-5.5"\n\n[features]\nplugins = false\nhooks = false # off\n\n[analytics]\nenabled = false\n';
    writeFileSync(config, own);
    const run = await provd(['hooks', 'install', '--agent', 'codex'], home);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(config, 'utf8'), own.replace('hooks = false # off', 'hooks = true'));
    assert.equal(readFileSync(`${config}.provd-backup`, 'utf8'), own);
    const broken = 'model = "gpt-5.5"\n[features\nhooks = true\n';
    writeFileSync(config, broken);
    const hooks = join(home, '.codex', 'hooks.json');
    const before = readFileSync(hooks, 'utf8');
    const refused = await provd(['hooks', 'install', '--agent', 'codex', '--socket', '/x'], home);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, new RegExp(`PROVD_ERR_HOOKS_SETTINGS: ${config}:2: `));
    assert.equal(readFileSync(config, 'utf8'), broken);
    assert.equal(
      readFileSync(hooks, 'utf8'),
      before,
      'a refused config.toml leaves hooks.json as it was too',
    );
  });

  it("warns, changing nothing of it, when the user's settings turn every hook off (Claude Code, Gemini CLI)", async function () {
    const home = temp.path;
    const off: [Agent, string, RegExp][] = [
      [
        'claude',
        '{"disableAllHooks": true}',
        /warning: .*settings\.json sets "disableAllHooks": true: Claude Code runs no hook/,
      ],
      [
        'gemini',
        '{"hooksConfig": {"enabled": false}}',
        /warning: .*settings\.json sets "hooksConfig": \{"enabled": false\}: Gemini CLI runs no hook/,
      ],
    ];
    for (const [agent, text, warning] of off) {
      const file = settingsFile(agent, home);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      const run = await provd(['hooks', 'install', '--agent', agent], home);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, warning);
      const { hooks: _hooks, ...rest } = readJson(file);
      assert.deepEqual(rest, JSON.parse(text));
    }
  });

  it('writes through a symlinked settings file to the file it names', async function () {
    const home = temp.path;
    const real = join(home, 'dotfiles', 'claude-settings.json');
    mkdirSync(dirname(real), { recursive: true });
    writeFileSync(real, '{}\n');
    mkdirSync(join(home, '.claude'));
    symlinkSync(real, join(home, '.claude', 'settings.json'));
    const run = await provd(['hooks', 'install', '--agent', 'claude'], home);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(statSync(join(home, '.claude', 'settings.json')).isFile());
    assert.deepEqual(Object.keys(readJson(real).hooks ?? {}), events.claude);
  });

  it('prints its usage without a command, and refuses an unknown agent or a bad --socket (exit 2)', async function () {
    const home = temp.path;
    const bare = await provd(['hooks'], home);
    assert.equal(bare.code, 2);
    for (const command of ['install', 'uninstall', 'print'])
      assert.match(
        bare.stderr,
        new RegExp(`\\$ provd hooks ${command} <--agent claude\\|codex\\|gemini> \\[--project\\]`),
      );
    const unknown = await provd(['hooks', 'install', '--agent', 'cursor'], home);
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.stderr,
      /PROVD_ERR_CONFIG_INVALID: --agent must be one of claude, codex, gemini, got "cursor"/,
    );
    const missing = await provd(['hooks', 'install'], home);
    assert.equal(missing.code, 2);
    const socket = await provd(['hooks', 'install', '--agent', 'claude', '--socket', 'a\nb'], home);
    assert.equal(socket.code, 2);
    assert.match(socket.stderr, /--socket must be a path without control characters/);
    assert.deepEqual(snapshot(home), {});
  });

  it("docs/cli.md lists each hooks command's usage as the CLI prints it", async function () {
    const usage = (await provd(['hooks'], temp.path)).stderr;
    const doc = readFileSync(join(packageRoot, 'docs', 'cli.md'), 'utf8');
    const lines = usage.split('\n').filter((line) => line.startsWith('$ provd hooks '));
    assert.equal(lines.length, 3);
    for (const line of lines) assert.ok(doc.includes(line.slice(2)), `docs/cli.md lacks: ${line.slice(2)}`);
  });
});
