/**
 * Replays a Dockerfile without a container engine: each stage's filesystem is a folder, COPY copies into it, RUN
 * runs the command there (absolute paths of the stage's WORKDIRs mapped into the folder), and the image's
 * unprivileged user is played by an existing one of this machine. Only the instructions this project's Dockerfile
 * uses are known; any other stops the replay, so the Dockerfile cannot grow a step the replay silently skips.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { runToEnd } from "./service.ts";

/** One instruction: its keyword and the rest of its line (continuations joined). */
export interface Instruction {
  keyword: string;
  args: string;
}

/** The instructions of a Dockerfile, comments dropped and continued lines joined. */
export function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!pending && (line === "" || line.startsWith("#"))) continue;
    if (line.endsWith("\\")) {
      pending += line.slice(0, -1) + " ";
      continue;
    }
    const whole = (pending + line).trim();
    pending = "";
    const m = whole.match(/^(\S+)\s+([\s\S]*)$/);
    if (!m) throw new Error(`unreadable Dockerfile line: ${whole}`);
    out.push({ keyword: m[1]!.toUpperCase(), args: m[2]! });
  }
  return out;
}

/** Who plays the image's users: a name in the image → uid and gid on this machine. */
export type Users = Record<string, { uid: number; gid: number }>;

/** A stage as replayed: its folder, working directory, environment and user. */
export interface Stage {
  name: string;
  image: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string;
}

/** The replayed image: its last stage and what it runs. */
export interface ReplayedImage {
  stages: Stage[];
  final: Stage;
  /** CMD as an argument list. */
  cmd: string[];
  /** HEALTHCHECK's CMD, a shell command. */
  healthcheck: string | undefined;
  volumes: string[];
}

/** The options of a replay. */
export interface ReplayOptions {
  /** The build context (the repository). */
  context: string;
  /** Where the stages' folders go. */
  scratch: string;
  /** The image's users (root is always uid 0). */
  users: Users;
  /** PATH for RUN steps and the container. */
  path: string;
  /** Environment every RUN step gets besides the stage's ENV and PATH (HOME, registry settings). */
  buildEnv: Record<string, string>;
  /** Called before each RUN with the command as it will run. */
  onRun?: (command: string, stage: Stage) => void;
}

function ignoredBy(context: string): (path: string) => boolean {
  const file = join(context, ".dockerignore");
  const patterns = existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith("#"))
    : [];
  for (const p of patterns)
    if (/[*?[!]/.test(p)) throw new Error(`.dockerignore pattern the replay does not know: ${p}`);
  return (path) => {
    const rel = relative(context, path);
    return patterns.some((p) => rel === p || rel.startsWith(p.replace(/\/$/, "") + "/"));
  };
}

/** A command or value with the stage's container paths mapped into its folder. */
function mapPaths(text: string, stage: Stage, workdirs: string[]): string {
  let out = text;
  for (const dir of workdirs) {
    const escaped = dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    out = out.replace(
      new RegExp(`(^|[\\s="':])${escaped}(?=[/\\s"']|$)`, "g"),
      (_m, before) => `${before}${stage.root}${dir}`,
    );
  }
  return out;
}

function uidOf(users: Users, name: string): { uid: number; gid: number } {
  if (name === "root") return { uid: 0, gid: 0 };
  const user = users[name];
  if (!user) throw new Error(`the replay has no stand-in for the image's user "${name}"`);
  return user;
}

/** The command to run `argv` as a user of the image (setpriv; root runs it directly). */
export function asUser(users: Users, name: string, argv: string[]): string[] {
  const { uid, gid } = uidOf(users, name);
  return uid === 0 ? argv : ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--", ...argv];
}

/** Replays every stage of the Dockerfile; throws on the first step that fails or that it does not know. */
export async function replayDockerfile(dockerfile: string, options: ReplayOptions): Promise<ReplayedImage> {
  const ignored = ignoredBy(options.context);
  const stages: Stage[] = [];
  const workdirs: string[] = [];
  let stage: Stage | undefined;
  let cmd: string[] = [];
  let healthcheck: string | undefined;
  const volumes: string[] = [];
  const inStage = (path: string, s: Stage, from = s.workdir) =>
    join(s.root, path.startsWith("/") ? path : join(from, path));
  for (const { keyword, args } of parseDockerfile(readFileSync(dockerfile, "utf8"))) {
    if (keyword === "FROM") {
      const m = args.match(/^(\S+)(?:\s+AS\s+(\S+))?$/i);
      if (!m) throw new Error(`FROM the replay cannot read: ${args}`);
      const root = join(options.scratch, `stage-${stages.length}`);
      mkdirSync(root, { recursive: true });
      stage = { name: m[2] ?? String(stages.length), image: m[1]!, root, workdir: "/", env: {}, user: "root" };
      stages.push(stage);
      continue;
    }
    if (!stage) throw new Error(`${keyword} before FROM`);
    const s = stage;
    switch (keyword) {
      case "WORKDIR":
        s.workdir = args.startsWith("/") ? args : join(s.workdir, args);
        if (!workdirs.includes(s.workdir)) workdirs.push(s.workdir);
        mkdirSync(inStage(s.workdir, s), { recursive: true });
        break;
      case "ENV":
        for (const pair of args.split(/\s+/)) {
          const eq = pair.indexOf("=");
          if (eq < 1) throw new Error(`ENV the replay cannot read: ${args}`);
          s.env[pair.slice(0, eq)] = pair.slice(eq + 1);
        }
        break;
      case "COPY": {
        const words = args.split(/\s+/);
        let from: Stage | undefined;
        while (words[0]?.startsWith("--")) {
          const flag = words.shift()!;
          const m = flag.match(/^--from=(\S+)$/);
          if (!m) throw new Error(`COPY flag the replay does not know: ${flag}`);
          from = stages.find((x) => x.name === m[1]);
          if (!from) throw new Error(`COPY --from an unknown stage: ${m[1]}`);
        }
        const dest = words.pop()!;
        const target = inStage(dest, s);
        for (const source of words) {
          const path = from ? inStage(source, from) : resolve(options.context, source);
          if (!from && ignored(path)) throw new Error(`COPY ${source}: excluded by .dockerignore`);
          if (!existsSync(path)) throw new Error(`COPY ${source}: not found`);
          const into = dest.endsWith("/") || words.length > 1 ? join(target, source.split("/").pop()!) : target;
          const isDir = statSync(path).isDirectory();
          cpSync(path, into, {
            recursive: true,
            verbatimSymlinks: true,
            filter: (p) => from !== undefined || !ignored(p),
          });
          if (!isDir && !existsSync(into)) throw new Error(`COPY ${source}: nothing copied`);
        }
        break;
      }
      case "RUN": {
        let command = mapPaths(args, s, workdirs);
        for (const [name, { uid, gid }] of Object.entries(options.users)) {
          command = command.replace(new RegExp(`(^|\\s)${name}:${name}(?=\\s)`, "g"), `$1${uid}:${gid}`);
        }
        options.onRun?.(command, s);
        const env: Record<string, string> = { ...options.buildEnv, PATH: options.path };
        for (const [k, v] of Object.entries(s.env)) env[k] = mapPaths(v, s, workdirs);
        const run = await runToEnd(asUser(options.users, s.user, ["sh", "-c", command]), {
          cwd: inStage(s.workdir, s),
          env,
        });
        if (run.code !== 0) throw new Error(`RUN ${args} failed (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
        break;
      }
      case "USER":
        uidOf(options.users, args);
        s.user = args;
        break;
      case "VOLUME":
        volumes.push(
          ...args
            .replace(/^\[|\]$/g, "")
            .split(/[\s,]+/)
            .map((v) => v.replace(/"/g, ""))
            .filter(Boolean),
        );
        break;
      case "CMD":
        cmd = JSON.parse(args);
        break;
      case "HEALTHCHECK": {
        const m = args.match(/\bCMD\s+([\s\S]+)$/);
        if (!m) throw new Error(`HEALTHCHECK the replay cannot read: ${args}`);
        healthcheck = m[1];
        break;
      }
      case "EXPOSE":
      case "STOPSIGNAL":
        break;
      default:
        throw new Error(`Dockerfile instruction the replay does not know: ${keyword}`);
    }
  }
  if (!stage) throw new Error("no stage in the Dockerfile");
  return { stages, final: stage, cmd, healthcheck, volumes };
}

/** The container's environment: the stage's ENV (paths mapped), `extra` over it. */
export function containerEnv(image: ReplayedImage, extra: Record<string, string>): Record<string, string> {
  const workdirs = [...new Set(image.stages.map((s) => s.workdir))];
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(image.final.env)) env[k] = mapPaths(v, image.final, workdirs);
  return { ...env, ...extra };
}

/**
 * A PATH like a slim image's: every program of this machine's usual folders except Node.js (oven/bun images have
 * none; Bun then runs `node` scripts itself), as links in one folder.
 */
export function pathWithoutNode(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const skip = new Set(["node", "nodejs", "npm", "npx", "corepack"]);
  const linked = new Set<string>();
  for (const folder of ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]) {
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder)) {
      if (skip.has(name) || linked.has(name)) continue;
      linked.add(name);
      symlinkSync(join(folder, name), join(dir, name));
    }
  }
  return dir;
}
