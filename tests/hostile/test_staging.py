"""Staging, checked from inside real sandboxed programs run as root: a bot is shown its entrant's files and
nothing that others may not read and that is not the entrant's; root never copies what a symbolic link
swapped in while it stages points to; a bot saved where users save things (a home folder, /tmp, the
working folder) is shown its own files alone."""

from __future__ import annotations

import ctypes
import os
import platform
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_levels import needs_jail

from arena.cli import main
from arena.isolation import sandbox, staging
from arena.isolation.sandbox import StartOptions, start

ROOT = Path(sandbox.__file__).resolve().parents[2]
SYSTEM_PYTHON = shutil.which("python3", path=sandbox.PATH) or sys.executable
#: An entrant's uid: the owner of its folder, no user of this machine and no bot.
ENTRANT_UID = 54321
#: What a bot tries to read and must not: the organizer's.
SECRET = "the organizer's master seed 8675309\n"

RENAME_EXCHANGE = 2
#: renameat2 by machine: ctypes reaches it through syscall(), which every libc has.
SYS_RENAMEAT2 = {"x86_64": 316, "aarch64": 276}.get(platform.machine())
needs_renameat2 = pytest.mark.skipif(SYS_RENAMEAT2 is None, reason=f"renameat2 is not known on {platform.machine()}")
#: A stage is made by root for a bot's uid: its copy goes to a group of its own, which only root may give.
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="staging is root's: it gives each copy to a group of its own")


def _exchange(folder: str, first: str, second: str) -> None:
    """Swap two names of ``folder`` in one step (``renameat2(RENAME_EXCHANGE)``)."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        if libc.syscall(SYS_RENAMEAT2, fd, first.encode(), fd, second.encode(), RENAME_EXCHANGE) != 0:
            raise OSError(ctypes.get_errno(), "renameat2")
    finally:
        os.close(fd)


def run(command: list[str], **options: object) -> tuple[int, str]:
    """Start ``command`` in the sandbox (the default level, the jail here): (exit status, standard output)."""
    box = start(command, StartOptions(stderr=sys.stderr.fileno(), **options))  # type: ignore[arg-type]
    try:
        assert box.process.stdout is not None
        out = box.process.stdout.read().decode()
        code = box.wait(60)
        assert code is not None, "the program did not end"
        return code, out
    finally:
        box.kill()


def _secret(path: Path, uid: int = 0) -> Path:
    path.write_text(SECRET)
    os.chown(path, uid, uid)
    path.chmod(0o600)
    return path


def _results(folder: Path, lock: bool) -> Path:
    """An earlier run's results folder: its tournament file (the master seed), records and games."""
    folder.mkdir(mode=0o700)
    (folder / "tournament.toml").write_text('name = "old"\nseed = 8675309\n')
    (folder / "records.jsonl.gz" if not lock else folder / "records.jsonl").write_text("every deal\n")
    (folder / "games.csv").write_text("game,seat0\n")
    if lock:
        (folder / ".arena.lock").write_text("")
    return folder


def _stages() -> set[Path]:
    """The copies this process has staged so far, one folder each."""
    held = staging.staging_folders.get(os.getpid())
    return set(Path(held[0]).iterdir()) if held is not None else set()


def _staged_text(before: set[Path]) -> str:
    """Everything this process has staged since ``before`` (from :func:`_stages`), as one text (a link staged
    is a link: what it points to is not in the stage)."""
    found = []
    for stage in _stages() - before:
        for folder, _, files in os.walk(stage):
            for name in files:
                if Path(folder, name).is_symlink():
                    continue
                try:
                    found.append(Path(folder, name).read_text(errors="replace"))
                except OSError:
                    pass
    return "".join(found)


# -- 1. what a stage holds ----------------------------------------------------------------------


@needs_jail
def test_an_open_entrant_folder_is_shown_as_it_is_and_its_closed_entries_stay_closed(tmp_path):
    """Nothing is staged for it: a subfolder of root's closed to others stays closed to the bot."""
    entrant = tmp_path / "entrant"
    entrant.mkdir(mode=0o755)
    entrant.chmod(0o755)
    closed = entrant / "private"
    closed.mkdir(mode=0o700)
    secret = _secret(closed / "key")
    bot = entrant / "bot.py"
    bot.write_text("import os\n"
                   f"try: print(open({str(secret)!r}).read().strip())\n"
                   "except OSError as e: print('refused', e.errno)\n"
                   f"print(sorted(os.listdir({str(entrant)!r})))\n")
    bot.chmod(0o644)
    before = _stages()
    code, out = run([SYSTEM_PYTHON, str(bot)])
    assert code == 0
    assert out.splitlines() == ["refused 13", "['bot.py', 'private']"]
    assert _stages() == before  # nothing of it was copied


@needs_jail
def test_a_closed_entrant_folder_is_staged_with_the_entrant_s_files_alone(tmp_path):
    """Staged: what the entrant owns and what others may read; never a file of another's closed to others,
    an earlier run's results folder, a FIFO, or a hidden path."""
    entrant = tmp_path / "entrant"
    entrant.mkdir(mode=0o700)
    files = {"bot.py": "import os\n"
                       "for folder, names, files in os.walk(os.path.dirname(os.path.abspath(__file__))):\n"
                       "    for name in sorted(names + files):\n"
                       "        path = os.path.join(folder, name)\n"
                       "        try: text = open(path).read() if os.path.isfile(path) else ''\n"
                       "        except OSError as e: text = f'refused {e.errno}'\n"
                       f"        print(os.path.relpath(path, {str(entrant)!r}), 'SECRET' if '8675' + '309' in text else '')\n",
             "helper.py": "X = 1\n", "notes.txt": "mine\n"}
    for name, text in files.items():
        (entrant / name).write_text(text)
        (entrant / name).chmod(0o600)
    (entrant / "shared.txt").write_text("anyone's\n")  # root's, open to others
    (entrant / "shared.txt").chmod(0o644)
    _secret(entrant / "organizer.txt")  # root's, closed to others: not the entrant's
    _results(entrant / "results-old", lock=False)
    _results(entrant / "results-new", lock=True)
    (entrant / "hidden").mkdir()
    (entrant / "hidden" / "x").write_text("hidden\n")
    (entrant / "sub").mkdir(mode=0o700)
    (entrant / "sub" / "data.txt").write_text("mine too\n")
    _secret(entrant / "sub" / "organizer.txt")
    (entrant / "link").symlink_to("helper.py")
    for path in [entrant, *entrant.rglob("*")]:
        if path.name not in ("organizer.txt", "shared.txt"):
            os.lchown(path, ENTRANT_UID, ENTRANT_UID)
    code, out = run([SYSTEM_PYTHON, str(entrant / "bot.py")], hide=(str(entrant / "hidden"),))
    assert code == 0
    assert sorted(line.split()[0] for line in out.splitlines()) == [
        "bot.py", "helper.py", "link", "notes.txt", "shared.txt", "sub", "sub/data.txt"]
    assert "SECRET" not in out


@needs_jail
def test_a_file_the_command_names_is_shown_whoever_owns_it(tmp_path):
    """Named by the command, a file is the entrant's, even in a staged folder and owned by another."""
    entrant = tmp_path / "entrant"
    entrant.mkdir(mode=0o700)
    os.chown(entrant, ENTRANT_UID, ENTRANT_UID)
    data = _secret(entrant / "weights.txt")  # root's, closed to others, but named
    bot = entrant / "bot.py"
    bot.write_text("import sys\nprint(open(sys.argv[1]).read().strip())\n")
    os.chown(bot, ENTRANT_UID, ENTRANT_UID)
    bot.chmod(0o600)
    code, out = run([SYSTEM_PYTHON, str(bot), str(data)])
    assert code == 0 and out == SECRET


# -- 2. a symbolic link swapped in while root stages -------------------------------------------------


def _swap_folder(tmp_path: Path) -> tuple[Path, Path]:
    """An entrant's folder others may not read, holding ``data`` and ``swap``, a link to root's secret."""
    secret = _secret(tmp_path / "secret")
    entrant = tmp_path / "entrant"
    entrant.mkdir(mode=0o700)
    (entrant / "data").write_text("the entrant's data\n")
    (entrant / "swap").symlink_to(secret)
    return entrant, secret


@needs_renameat2
@needs_root
def test_a_link_swapped_in_between_listing_and_copying_is_never_followed(tmp_path, monkeypatch):
    """Every listing of the folder swaps ``data`` and the link at once after it: what was listed as a file is
    a link when it is copied (and the other way round)."""
    entrant, _ = _swap_folder(tmp_path)
    listed = os.scandir

    class Listing:
        def __init__(self, entries: list[os.DirEntry[str]]) -> None:
            self.entries = iter(entries)

        def __enter__(self) -> Listing:
            return self

        def __exit__(self, *_: object) -> None:
            pass

        def __iter__(self) -> Iterator[os.DirEntry[str]]:
            return self

        def __next__(self) -> os.DirEntry[str]:
            return next(self.entries)

        def close(self) -> None:
            pass

    def swapping(path: object = ".") -> Listing:
        with listed(path) as found:  # type: ignore[call-overload]
            entries = list(found)
        if {e.name for e in entries} == {"data", "swap"}:
            _exchange(str(entrant), "data", "swap")
        return Listing(entries)

    before = _stages()
    monkeypatch.setattr(os, "scandir", swapping)
    for _ in range(4):
        try:
            staging.stage_copy(str(entrant), ())
        except sandbox.SandboxError:
            pass
    monkeypatch.undo()
    assert SECRET not in _staged_text(before)


@needs_renameat2
@needs_root
def test_a_link_swapped_in_as_a_file_is_opened_is_refused(tmp_path, monkeypatch):
    """Swapped just before root opens the file it listed: the open does not follow the link, and a file
    that is not the one listed is not copied."""
    entrant, _ = _swap_folder(tmp_path)
    opened = os.open

    def swapping(path: object, flags: int, *args: object, **options: object) -> int:
        if path == "data" and options.get("dir_fd") is not None:
            _exchange(str(entrant), "data", "swap")
        return opened(path, flags, *args, **options)  # type: ignore[arg-type]

    before = _stages()
    monkeypatch.setattr(os, "open", swapping)
    with pytest.raises(sandbox.SandboxError, match="changed while it was being staged"):
        staging.stage_copy(str(entrant), ())
    monkeypatch.undo()
    assert SECRET not in _staged_text(before)


SWAPPER = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
print('ready', flush=True)
while True:
    libc.syscall(int(sys.argv[2]), fd, b'data', fd, b'swap', 2)
"""


@needs_renameat2
@needs_root
def test_a_link_swapped_all_the_while_root_stages_never_has_it_copy_the_secret(tmp_path):
    """The real race: another process swaps ``data`` and a link to root's secret as fast as it can while
    the folder is staged 200 times."""
    entrant, _ = _swap_folder(tmp_path)
    before = _stages()
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(entrant), str(SYS_RENAMEAT2)],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert swapper.stdout is not None and swapper.stdout.readline() == "ready\n"
        for _ in range(200):
            try:
                staging.stage_copy(str(entrant), ())
            except sandbox.SandboxError:
                pass  # it changed while it was staged: refused, which is the entrant's loss
    finally:
        swapper.kill()
        swapper.wait()
    assert SECRET not in _staged_text(before)


# -- 3. a bot saved where users save things ---------------------------------------------------------

READER = '''import os, sys
from arena.bots import Bot

try:
    open({secret!r}).read()
    print("read the secret", file=sys.stderr)
except OSError as e:
    print("refused", e.errno, file=sys.stderr)
print("beside it:", sorted(os.listdir(os.path.dirname(os.path.abspath(__file__)))), file=sys.stderr)


class Reader(Bot):
    def choose(self, view):
        return list(view.legal)[0]
'''


def _tour_bot() -> str:
    """The README's tour bot, as the README gives it (the Python block before "Save it as `joiner.py`")."""
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```\n\nSave it as `joiner.py`", readme, re.S)
    assert len(blocks) == 1, "the README's tour bot was not found"
    return blocks[0]


def _play(cli, bot: str, logs: Path, name: str = "Reader") -> str:
    """Play ``bot`` against random in the sandbox; its log (what it wrote to standard error)."""
    result = cli.invoke(main, ["play", f"{bot}:{name}", "random", "--seed", "3", "--logs", str(logs), "-q",
                               "--time-limit", "600"])  # a slow machine never faults it
    assert result.exit_code == 0, result.output
    text = "".join(path.read_text() for path in sorted(logs.glob("*.log")))
    assert "fault" not in result.output.lower(), result.output + text
    return text


@needs_jail
def test_a_bot_saved_in_the_home_folder_plays_and_reads_nothing_else_there(tmp_path, monkeypatch, cli):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("HOME", str(home))
    secret = _secret(home / ".netrc")
    bot = home / "reader.py"
    bot.write_text(READER.format(secret=str(secret)))
    bot.chmod(0o600)  # closed to others: staged alone
    log = _play(cli, str(bot), tmp_path / "logs")
    assert "refused 2" in log and "read the secret" not in log
    assert "beside it: ['reader.py']" in log


def _real_home() -> str | None:
    """A user's home of this machine other than root's, that is its user's own folder."""
    for user in sorted(pwd.getpwall(), key=lambda u: u.pw_dir):
        if user.pw_uid != 0 and user.pw_dir not in ("/", "/root") and os.path.isdir(user.pw_dir):
            if os.stat(user.pw_dir).st_uid == user.pw_uid and not user.pw_dir.startswith(("/var/", "/run/")):
                return user.pw_dir
    return None


@needs_jail
def test_a_bot_saved_in_a_user_s_home_plays_and_reads_nothing_else_there(tmp_path, cli):
    home = _real_home()
    if home is None:
        print("no user of this machine has a home of its own besides root")
        pytest.skip("no user of this machine has a home of its own besides root")
    fd, name = tempfile.mkstemp(prefix="arena-test-", suffix=".secret", dir=home)
    os.close(fd)
    bot = Path(name).with_suffix(".py")
    try:
        secret = _secret(Path(name))
        bot.write_text(READER.format(secret=str(secret)))
        bot.chmod(0o644)  # open to others: shown as it is
        log = _play(cli, str(bot), tmp_path / "logs")
    finally:
        Path(name).unlink(missing_ok=True)
        bot.unlink(missing_ok=True)
    assert "refused 2" in log and "read the secret" not in log
    assert f"beside it: [{bot.name!r}]" in log


@needs_jail
def test_a_bot_saved_in_tmp_plays_and_reads_nothing_else_there(tmp_path, cli):
    fd, name = tempfile.mkstemp(prefix="arena-test-", suffix=".py", dir="/tmp")
    os.close(fd)
    bot, secret = Path(name), Path(name).with_suffix(".secret")
    try:
        _secret(secret)
        bot.write_text(READER.format(secret=str(secret)))
        bot.chmod(0o600)
        log = _play(cli, str(bot), tmp_path / "logs")
    finally:
        secret.unlink(missing_ok=True)
        bot.unlink(missing_ok=True)
    assert "refused 2" in log and "read the secret" not in log
    assert "beside it:" in log and bot.name in log and secret.name not in log


@needs_jail
def test_a_program_saved_in_tmp_runs_staged_alone(tmp_path):
    """``exec:/tmp/mybot.py``: a script closed to others, in /tmp, is staged alone; /tmp is not."""
    fd, name = tempfile.mkstemp(prefix="arena-test-", suffix=".py", dir="/tmp")
    os.close(fd)
    script, secret = Path(name), Path(name).with_suffix(".secret")
    try:
        _secret(secret)
        script.write_text("#!/usr/bin/env python3\nimport os\n"
                          f"try: open({str(secret)!r}).read(); print('read')\n"
                          "except OSError as e: print('refused', e.errno)\n"
                          "print(sorted(os.listdir('/tmp')))\n")
        script.chmod(0o700)
        code, out = run([str(script)])
    finally:
        secret.unlink(missing_ok=True)
        script.unlink(missing_ok=True)
    assert code == 0
    assert out.splitlines()[0] == "refused 2"
    assert script.name in out and secret.name not in out


@needs_jail
def test_a_bot_in_the_working_folder_beside_results_reads_nothing_else_there(tmp_path, monkeypatch, cli):
    work = tmp_path / "work"
    work.mkdir(mode=0o700)
    secret = _secret(work / "tournament.toml")
    _results(work / "results", lock=True)
    (work / "reader.py").write_text(READER.format(secret=str(secret)))
    monkeypatch.chdir(work)
    log = _play(cli, "reader.py", tmp_path / "logs")
    assert "refused 2" in log and "read the secret" not in log
    assert "beside it: ['reader.py']" in log


@needs_jail
@pytest.mark.parametrize("place", ["home", "tmp"])
def test_the_readme_s_tour_bot_plays_where_a_user_saves_it(tmp_path, monkeypatch, cli, place):
    if place == "home":
        home = tmp_path / "home"
        home.mkdir(mode=0o700)
        monkeypatch.setenv("HOME", str(home))
        bot = home / "joiner.py"
    else:
        fd, name = tempfile.mkstemp(prefix="arena-test-", suffix=".py", dir="/tmp")
        os.close(fd)
        bot = Path(name)
    try:
        bot.write_text(_tour_bot())
        _play(cli, str(bot), tmp_path / "logs", name="Joiner")
    finally:
        if place == "tmp":
            bot.unlink(missing_ok=True)


@needs_jail
def test_an_entrant_too_large_to_stage_is_refused_without_opening_anything_to_everyone(tmp_path, monkeypatch):
    entrant = tmp_path / "entrant"
    entrant.mkdir(mode=0o700)
    bot = entrant / "big.py"
    bot.write_text("#" * 4096)
    bot.chmod(0o600)
    monkeypatch.setattr(staging, "STAGE_MB", 0)
    with pytest.raises(sandbox.SandboxError) as refused:
        start([SYSTEM_PYTHON, str(bot)])
    message = str(refused.value)
    assert str(entrant) in message and "folder of its own" in message
    assert "chmod" not in message and "\n" not in message


def test_shared_places_are_the_root_homes_folders_anyone_writes_and_a_busy_working_folder(tmp_path, monkeypatch):
    from arena.isolation.rootfs import shared_place
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    anyones = tmp_path / "anyone"
    anyones.mkdir()
    anyones.chmod(0o1777)
    work = tmp_path / "work"
    work.mkdir()
    (work / "bot.py").write_text("")
    monkeypatch.chdir(work)
    assert shared_place("/") and shared_place(str(home)) and shared_place(str(anyones))
    assert shared_place("/tmp") and shared_place(pwd.getpwuid(0).pw_dir)
    assert not shared_place(str(work), (str(work / "bot.py"),))  # it holds the bot alone
    (work / "tournament.toml").write_text("")
    assert shared_place(str(work), (str(work / "bot.py"),))
    assert not shared_place(str(tmp_path))


@needs_root
def test_a_stage_holds_no_fifo_and_links_stay_links(tmp_path):
    entrant = tmp_path / "entrant"
    entrant.mkdir(mode=0o700)
    (entrant / "bot.py").write_text("pass\n")
    os.mkfifo(entrant / "pipe")
    (entrant / "away").symlink_to(_secret(tmp_path / "secret"))
    copy, _ = staging.stage_copy(str(entrant), ())
    assert sorted(os.listdir(copy)) == ["away", "bot.py"]
    assert os.readlink(os.path.join(copy, "away")) == str(tmp_path / "secret")
    assert oct(os.stat(os.path.join(copy, "bot.py")).st_mode & 0o777) == "0o640"


def test_a_results_folder_is_told_by_the_names_the_arena_writes():
    from arena.results import files
    assert staging.LOCK_FILE == files.LOCK_FILE and staging.TOURNAMENT_FILE == files.TOURNAMENT_FILE
    assert staging.RESULTS_FILES <= {*files.OUTPUT_FILES, files.MATCH_FILE}
    assert staging.is_results_folder({"tournament.toml", "games.csv"}) and staging.is_results_folder({".arena.lock"})
    assert not staging.is_results_folder({"tournament.toml", "bot.py"})


@needs_root
def test_a_stage_is_made_once_per_referee_process_while_nothing_in_it_changes(tmp_path):
    entrant = tmp_path / "entrant"
    entrant.mkdir(mode=0o700)
    (entrant / "bot.py").write_text("pass\n")
    first, gid = staging.stage_copy(str(entrant), ())
    time.sleep(2.1)  # past the file system's clock tick: a change to come would show in the times
    assert staging.stage_copy(str(entrant), ()) == staging.stage_copy(str(entrant), ()) == (first, gid)
    (entrant / "bot.py").write_text("print('changed')\n")
    again, same = staging.stage_copy(str(entrant), ())
    assert again != first and same == gid
    assert Path(again, "bot.py").read_text() == "print('changed')\n"


@needs_root
@pytest.mark.parametrize("owner", ["the entrant", "another, closed to others"])
def test_the_working_folder_in_a_staged_folder_is_staged_with_only_what_the_command_names(tmp_path, monkeypatch,
                                                                                          owner):
    """A bot may start in it, whoever owns it, and sees there only the files its command names (here the
    arena's working folder holds a transcript and a results folder besides)."""
    from arena.isolation.rootfs import layout_of
    entrant = tmp_path / "entrant"
    work = entrant / "work"
    work.mkdir(parents=True)
    entrant.chmod(0o700)
    (entrant / "bot.py").write_text("pass\n")
    (work / "data.txt").write_text("named\n")
    (work / "transcript.txt").write_text("every rack\n")
    _results(work / "results", lock=True)
    if owner != "the entrant":
        os.chown(work, ENTRANT_UID, ENTRANT_UID)
        work.chmod(0o700)
    monkeypatch.chdir(work)
    own = [str(entrant / "bot.py"), str(entrant), str(work / "data.txt")]
    layout = layout_of(own, [], [], stage=True)
    (copy,) = [source for path, source in layout.binds if path == str(entrant)]
    assert sorted(os.listdir(copy)) == ["bot.py", "work"]
    assert os.listdir(os.path.join(copy, "work")) == ["data.txt"]


@needs_jail
def test_the_working_folder_in_an_open_entrant_folder_shows_only_what_the_command_names(tmp_path, monkeypatch):
    entrant = tmp_path / "entrant"
    work = entrant / "work"
    work.mkdir(parents=True)
    for folder in (entrant, work):
        folder.chmod(0o755)
    (entrant / "bot.py").write_text("import os, sys\nprint(sorted(os.listdir('.')), open(sys.argv[1]).read().strip())\n")
    (work / "data.txt").write_text("named\n")
    (work / "tournament.toml").write_text("seed = 8675309\n")  # open to others, but not the bot's
    monkeypatch.chdir(work)
    code, out = run([SYSTEM_PYTHON, str(entrant / "bot.py"), "data.txt"], cwd=str(work))
    assert code == 0
    assert out == "['data.txt'] named\n"
