"""The ``segeval`` entry points and exit codes (docs/cli.md, "Exit codes")."""

from __future__ import annotations

import copy
import sys

import typer
from typer.exceptions import TyperException

from segeval.cli.app import ARGV
from segeval.cli.commands import COMMANDS, load
from segeval.core.errors import SegevalError, printable


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code: a message, never a traceback; standard output guarded (EPIPE
    ends the command quietly)."""
    from segeval.cli.inputs import STDIN, reset_streams

    reset_streams()  # each command reads a pipe or standard input once
    args = sys.argv[1:] if argv is None else argv
    ARGV[:] = args
    if args.count(STDIN) > 1:  # no option takes '-' as its value: each one is an input
        print(
            f"segeval: error: standard input ('{STDIN}') may be given once per command. Got it "
            f"{args.count(STDIN)} times.",
            file=sys.stderr,
        )
        return 2
    from segeval.cli.streams import GuardedStderr, stdout_closed
    from segeval.reports.output import GuardedStdout, OutputClosed

    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout = GuardedStdout(stdout, closed=stdout_closed())
    sys.stderr = GuardedStderr(stderr)
    try:
        code = _dispatch(argv, args)
        sys.stdout.flush()
        return code
    except OutputClosed:
        return 0
    except SegevalError as exc:  # the standard output failed while flushing
        print(f"segeval: error: {exc}", file=sys.stderr)
        return exc.exit_code
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def app_for(args: list[str]) -> typer.Typer:
    """The app with only the command ``args`` name first, its module alone imported (typer builds every
    command's parser on each call), or the whole app (no command, an option first, a group, a typo)."""
    name = args[0] if args else None
    app = load(name if name in COMMANDS else None)
    chosen = [c for c in app.registered_commands if c.name == name]
    if len(chosen) != 1:
        return load()
    one = copy.copy(app)
    one.registered_commands, one.registered_groups = chosen, []
    return one


def _dispatch(argv: list[str] | None, args: list[str]) -> int:
    from segeval.executors.interrupt import wait_if_stopping
    from segeval.reports.output import OutputClosed

    try:
        try:
            returned = app_for(args)(args=argv, prog_name="segeval", standalone_mode=False)
        finally:
            wait_if_stopping()  # a signal stops the process: how the command ended meanwhile is not reported
        if isinstance(returned, int) and not isinstance(returned, bool):
            return returned  # typer.Exit(code) inside a command comes back as a return value
    except OutputClosed:
        raise
    except SegevalError as exc:
        print(f"segeval: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except TyperException as exc:
        _with_domain(exc)
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            print(f"segeval: error: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_code", 2))
    except typer.Abort:
        print("segeval: aborted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except MemoryError:
        print("segeval: error: out of memory", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug: still no traceback for the user
        print(printable(f"segeval: internal error: {type(exc).__name__}: {exc} (please report this)"), file=sys.stderr)
        return 1
    return 0


def _with_domain(exc: Exception) -> None:
    """A declared option's text its type refused (``--max-proposals nan``): the message also says the domain."""
    from segeval.core.domains import OPTIONS

    param, ctx = getattr(exc, "param", None), getattr(exc, "ctx", None)
    if param is not None and ctx is not None and isinstance(getattr(exc, "message", None), str):
        declared = OPTIONS.get(ctx.info_name or "", {}).get(param.name or "")
        if declared is not None:
            exc.message += f" The '{declared[0]}' parameter must be {declared[1]}."  # type: ignore[attr-defined]


def entry() -> None:
    """Console-script entry point: ends without the interpreter's teardown (exit handlers run, streams
    flushed), OpenBLAS on one thread (segeval does no linear algebra); docs/cli.md, "Exit codes"."""
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from segeval.cli.streams import prepare
    from segeval.executors.interrupt import install
    from segeval.reports.output import silence_stdout

    prepare()  # closed standard streams on /dev/null, UTF-8 output whatever the locale
    install()
    code = main()
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:  # a reader gone or a failing stream: already reported by main
            if stream is sys.stdout:
                silence_stdout()
        except ValueError:  # a closed stream
            pass
    os._exit(code)
