"""A program that fails to start is told in its own words: the first lines it wrote to standard output when they
are not the protocol's, the last lines of its standard error, its memory limit when it speaks of memory, and
the folder its command names that the sandbox does not show it."""

from __future__ import annotations

import os
import shlex
import sys
import textwrap
from pathlib import Path

import pytest

from arena.isolation import sandbox
from arena.play.botprocess import SHOWN_OUTPUT, BotProcess, BotProcessError, Program, exec_program

#: What a JVM that cannot get its memory writes, on its standard output, then its standard error.
JVM_OUT = ("#\n# There is insufficient memory for the Java Runtime Environment to continue.\n"
           "# Native memory allocation (mmap) failed to map 6193152 bytes. Error detail: committing reserved memory.\n"
           "# An error report file with more information is saved as:\n# /tmp/hs_err_pid1.log\n")
JVM_ERR = "OpenJDK 64-Bit Server VM warning: INFO: os::commit_memory(0x00007f19c8400000, 6193152, 0) failed\n"


def inline(folder: Path, name: str, code: str) -> str:
    """An ``exec:`` ref of a small Python program written in ``folder``."""
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(code))
    return "exec:" + shlex.join([sys.executable, str(path)])


def start_error(program: Program, log: Path) -> str:
    with pytest.raises(BotProcessError) as caught:
        BotProcess(program, log=str(log)).start(1.0)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_program_whose_first_output_is_not_the_protocol_is_shown_in_its_own_words(tmp_path):
    ref = inline(tmp_path, "jvm", f"""
        import sys
        sys.stdout.write({JVM_OUT!r}); sys.stdout.flush()
        sys.stderr.write({JVM_ERR!r})
        sys.exit(1)
    """)
    message = start_error(exec_program(ref), tmp_path / "jvm.log")
    assert "wrote a line that is not JSON: '#'" in message
    assert ("its standard output began: # | # There is insufficient memory for the Java Runtime Environment to "
            "continue. | # Native memory allocation (mmap) failed to map 6193152 bytes.") in message, message
    assert f"its last words: {JVM_ERR.strip()} (its standard error: {tmp_path / 'jvm.log'})" in message
    assert message.endswith("; its memory limit is 2048 MiB (memory_mb in a tournament file)")


def test_the_first_output_shown_is_bounded_and_read_while_the_program_runs_on(tmp_path):
    """A program that prints a banner and then waits: what it wrote is shown, up to a few hundred bytes."""
    ref = inline(tmp_path, "banner", """
        import os, time
        os.write(1, "".join(f"banner line {n}\\n" for n in range(200)).encode())  # 3 KB: one write, whole
        time.sleep(60)
    """)
    message = start_error(exec_program(ref), tmp_path / "banner.log")
    began = message.partition("its standard output began: ")[2].partition("; ")[0]
    assert began.startswith("banner line 0 | banner line 1 | banner line 2")
    assert len(began) <= SHOWN_OUTPUT
    assert message.endswith("; it wrote nothing to its standard error")
    assert "memory" not in message


def test_a_hello_that_is_json_but_wrong_is_not_shown_again(tmp_path):
    ref = inline(tmp_path, "wrong", """
        import sys
        print('{"type": "hello", "protocol": "uptown-bot/1", "name": 5}', flush=True)
        sys.stdin.read()
    """)
    message = start_error(exec_program(ref), tmp_path / "wrong.log")
    assert "standard output began" not in message and "last words" not in message


@pytest.mark.skipif(sandbox.walls() not in ("jail", "userns"), reason="only a fresh root hides a folder")
def test_a_command_that_names_a_folder_it_is_not_shown_is_told_which_and_how_to_name_it(tmp_path, monkeypatch):
    """Run from the bot's own folder, a folder others may write, ``.`` is not shown (the bot's folder, named by
    the command, is shown whole where others may not write it)."""
    bot = tmp_path / "mybot"
    bot.mkdir()
    bot.chmod(0o777)
    (bot / "mybot.py").write_text("import sys\nsys.exit('no hello today')\n")
    (bot / "notes.txt").write_text("the bot's folder holds more than the bot\n")
    monkeypatch.chdir(bot)
    program = Program((sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import mybot", "."),
                      cwd=os.getcwd())
    message = start_error(program, tmp_path / "mybot.log")
    assert "ended before answering hello: exit code 1; its last words: " in message
    assert "ModuleNotFoundError: No module named 'mybot'" in message
    assert message.endswith(
        f"; its command names the folder {bot}, which it is not shown (a folder others may write: a bot sees "
        f"only the files its command names there): run from "
        f"{tmp_path} and name the folder mybot, or name its files"), message
