"""Which runtime a command runs in: a command's words are looked at as files only where they
can be files, and a bare `python3` counts as the runtime's own interpreter."""

from sandbox.runtimes import RuntimeChoice, host_runtime
from sandbox.warm import names_the_runtime_python


def test_a_program_given_inline_longer_than_a_file_name_is_no_file():
    """A `-c` program of over 255 characters: os.stat refuses it as a name (ENAMETOOLONG);
    the rollouts API answered 500 for it."""
    program = "print('x')\n" * 40
    assert RuntimeChoice(command=("python3", "-c", program)).for_host() == host_runtime()


def test_a_bare_python3_on_the_sandboxs_path_is_the_runtimes_interpreter():
    runtime = host_runtime()
    assert names_the_runtime_python(str(runtime.python), runtime)
    assert names_the_runtime_python("python3", runtime)
    assert not names_the_runtime_python("python3.9", runtime)  # on no PATH folder here, or another interpreter
    assert not names_the_runtime_python("/usr/bin/python3", runtime)  # another interpreter's path
    assert not names_the_runtime_python("node", runtime)
