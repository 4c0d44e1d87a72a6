#!/usr/bin/env python3
"""hermes_oracle.py — ask hermes-agent's OWN code what it loads from a memories folder.

Usage (run with the hermes venv's python, see agents_setup.sh):
  /work/cache/agents/hermes-0.19.0/bin/python hermes_oracle.py [HERMES_HOME] [options]

  HERMES_HOME          the Hermes home to read (holds config.yaml and memories/MEMORY.md, USER.md).
                       Default: $HERMES_HOME, else ~/.hermes (Hermes' own default).
  --memories DIR       read MEMORY.md/USER.md from DIR instead of HERMES_HOME/memories
  --config FILE        use FILE as config.yaml instead of HERMES_HOME/config.yaml
  --no-config          behave as if there were no config.yaml (Hermes' defaults)
  --add-chars N        also report whether memory(action=add) of an N-char entry is refused, per file
                       (repeatable).  The add really runs, on a throw-away copy.
  --add-text TEXT      same with a given text (threat scan and strip apply as in Hermes)
  --in-place           point HERMES_HOME at the real folder instead of a temp copy (Hermes' load_config
                       creates its skeleton dirs there; adds still go to a throw-away copy)

By default everything is copied (bytes only, links followed as Hermes follows them) into a temporary
HERMES_HOME so nothing of the real folder is touched.  Set PYTHONHASHSEED=0 for a reproducible order
of several invisible_unicode ids inside one [BLOCKED: ...] placeholder (Hermes iterates a set).

Prints JSON:
  version                     importlib.metadata.version("hermes-agent")
  config                      memory_enabled, user_profile_enabled, memory_char_limit, user_char_limit
                              exactly as agent_init passes them (no coercion), plus config_error
  load_error                  repr of the exception MemoryStore.load_from_disk raised, if any (Hermes
                              swallows it: memory is then silently absent from the prompt)
  files.{MEMORY.md,USER.md}:
     entries                  live entries as Hermes parses them (split on "\\n§\\n", strip, empties
                              dropped, first of duplicates kept)
     snapshot_entries         the entries that go into the prompt ([BLOCKED: ...] placeholders applied)
     live_chars               len("\\n§\\n".join(entries))  — what add/replace budget against
     snapshot_chars           the count shown in the prompt header (of the sanitized entries)
     limit                    the configured limit
     block                    the exact rendered block (header + entries), or null
     in_prompt                whether the block reaches the system prompt (enabled flag and non-empty)
     add                      [{chars, refused, result}] for each --add-chars / --add-text
  prompt_text                 the memory part of the system prompt's volatile tier, joined as Hermes
                              joins it ("\\n\\n" between blocks, each stripped), before the timestamp line
"""
from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

TARGETS = (("memory", "MEMORY.md"), ("user", "USER.md"))


def _copy_if_file(src: Path, dst: Path) -> None:
    # Hermes reads with Path.read_text, which follows links; a file it could not read is "no entries".
    try:
        data = src.read_bytes()
    except FileNotFoundError:
        return
    except (OSError, IOError):
        # keep it unreadable in the copy so Hermes' own OSError path runs
        dst.write_bytes(b"")
        dst.chmod(0)
        return
    dst.write_bytes(data)


def _prepare_home(src_home: Path, memories: Path, config: Path | None, tmp: Path) -> Path:
    home = tmp / "hermes-home"
    (home / "memories").mkdir(parents=True)
    if config is not None and config.exists():
        shutil.copyfile(config, home / "config.yaml")
    for _, name in TARGETS:
        _copy_if_file(memories / name, home / "memories" / name)
    return home


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(add_help=True)
    ap.add_argument("home", nargs="?")
    ap.add_argument("--memories")
    ap.add_argument("--config")
    ap.add_argument("--no-config", action="store_true")
    ap.add_argument("--add-chars", type=int, action="append", default=[])
    ap.add_argument("--add-text", action="append", default=[])
    ap.add_argument("--in-place", action="store_true")
    ap.add_argument("--serve", action="store_true",
                    help="answer many inspections: each stdin line is {\"args\": [...], \"env\": {...}}; each answer "
                         "is one stdout line \"@@oracle@@\" + JSON ({\"ok\": ...} or {\"error\": ...})")
    return ap


def main() -> int:
    args = parser().parse_args()
    if args.serve:
        return serve()
    out = inspect(args)
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")
    return 0


def serve() -> int:
    base = dict(os.environ)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            os.environ.clear()
            os.environ.update(base)
            for k, v in (req.get("env") or {}).items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            answer = {"ok": inspect(parser().parse_args(req.get("args") or []))}
        except Exception as e:  # noqa: BLE001 - one bad request must not end the server
            import traceback
            answer = {"error": f"{e!r}\n{traceback.format_exc()}"}
        sys.stdout.write("@@oracle@@" + json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


def inspect(args: argparse.Namespace) -> dict:

    src_home = Path(args.home or os.environ.get("HERMES_HOME", "").strip() or Path.home() / ".hermes")
    memories = Path(args.memories) if args.memories else src_home / "memories"
    config = None if args.no_config else (Path(args.config) if args.config else src_home / "config.yaml")

    tmp = Path(tempfile.mkdtemp(prefix="hermes-oracle-"))
    try:
        if args.in_place and not args.memories and not args.config and not args.no_config:
            home = src_home
        else:
            home = _prepare_home(src_home, memories, config, tmp)
        os.environ["HERMES_HOME"] = str(home)
        # the managed scope (/etc/hermes or $HERMES_MANAGED_DIR) is left as the machine has it

        from hermes_cli.config import load_config  # Hermes' own loader (defaults merged, ${VAR})
        from tools.memory_tool import ENTRY_DELIMITER, MemoryStore

        out: dict = {"version": importlib.metadata.version("hermes-agent"), "source_home": str(src_home),
                     "memories_dir": str(memories), "hermes_home": str(home)}

        # --- the glue of agent/agent_init.py, line for line (it is not a callable of its own) ---
        cfg_error = None
        try:
            agent_cfg = load_config()
        except Exception as e:  # agent_init: `except Exception: _agent_cfg = {}`
            agent_cfg, cfg_error = {}, repr(e)
        store = None
        memory_enabled = user_profile_enabled = False
        load_error = None
        mem_config = {}
        try:
            mem_config = agent_cfg.get("memory", {})
            memory_enabled = mem_config.get("memory_enabled", False)
            user_profile_enabled = mem_config.get("user_profile_enabled", False)
            int(mem_config.get("nudge_interval", 10))   # agent_init reads it here: a bad one raises
            if memory_enabled or user_profile_enabled:
                store = MemoryStore(
                    memory_char_limit=mem_config.get("memory_char_limit", 2200),
                    user_char_limit=mem_config.get("user_char_limit", 1375),
                )
                store.load_from_disk()
        except Exception as e:  # agent_init: `except Exception: pass  # Memory is optional`
            load_error = repr(e)
        out["config"] = {
            "memory_enabled": memory_enabled,
            "user_profile_enabled": user_profile_enabled,
            "memory_char_limit": mem_config.get("memory_char_limit", 2200) if isinstance(mem_config, dict) else None,
            "user_char_limit": mem_config.get("user_char_limit", 1375) if isinstance(mem_config, dict) else None,
            "config_error": cfg_error,
        }
        out["load_error"] = load_error

        # A store to show the parse even when Hermes would not build one (memory disabled).
        shown = store
        if shown is None:
            lim = mem_config if isinstance(mem_config, dict) else {}
            shown = MemoryStore(memory_char_limit=lim.get("memory_char_limit", 2200),
                                user_char_limit=lim.get("user_char_limit", 1375))
            try:
                shown.load_from_disk()
            except Exception:
                pass

        files = {}
        prompt_parts = []
        for target, name in TARGETS:
            entries = shown._entries_for(target)
            snap_entries = MemoryStore._sanitize_entries_for_snapshot(entries, name)
            block = store.format_for_system_prompt(target) if store is not None else None
            enabled = memory_enabled if target == "memory" else user_profile_enabled
            in_prompt = bool(store is not None and enabled and block)
            if in_prompt:
                prompt_parts.append(block)
            files[name] = {
                "path": str(Path(os.environ["HERMES_HOME"]) / "memories" / name),
                "exists": (Path(os.environ["HERMES_HOME"]) / "memories" / name).exists(),
                "entries": entries,
                "snapshot_entries": snap_entries,
                "live_chars": len(ENTRY_DELIMITER.join(entries)) if entries else 0,
                "snapshot_chars": len(ENTRY_DELIMITER.join(snap_entries)) if snap_entries else 0,
                "limit": shown._char_limit(target) if store is None else store._char_limit(target),
                "block": block,
                "in_prompt": in_prompt,
                "add": [],
            }
        # build_system_prompt_parts: "\n\n".join(p.strip() for p in volatile_parts if p and p.strip())
        out["prompt_text"] = "\n\n".join(p.strip() for p in prompt_parts if p and p.strip())

        # --- would an add be refused?  Run Hermes' own add() on a throw-away copy per attempt. ---
        attempts = [("x" * n, n) for n in args.add_chars] + [(t, len(t.strip())) for t in args.add_text]
        if attempts and (memory_enabled or user_profile_enabled):
            limits = {t: files[n]["limit"] for t, n in TARGETS}
            for target, name in TARGETS:
                for text, n in attempts:
                    scratch = tmp / f"add-{target}-{len(files[name]['add'])}"
                    (scratch / "memories").mkdir(parents=True)
                    src = Path(os.environ["HERMES_HOME"]) / "memories" / name
                    if src.exists():
                        shutil.copyfile(src, scratch / "memories" / name)
                    saved = os.environ["HERMES_HOME"]
                    os.environ["HERMES_HOME"] = str(scratch)
                    try:
                        s = MemoryStore(memory_char_limit=limits["memory"], user_char_limit=limits["user"])
                        try:
                            result = s.add(target, text)
                        except Exception as e:
                            result = {"success": False, "exception": repr(e)}
                    finally:
                        os.environ["HERMES_HOME"] = saved
                    files[name]["add"].append({"chars": n, "refused": not result.get("success", False),
                                               "result": result})
        out["files"] = files
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
