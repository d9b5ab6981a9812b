"""`detour run FILE ARG...` runs the program with its arguments, as `python FILE ARG...` and
`node FILE ARG...` would; after `--` the words are a command, as before."""

from tests.e2e.test_cli import detour, home, write  # noqa: F401 - the fixture


def test_arguments_after_the_file_reach_the_program(home):  # noqa: F811
    python = write(home, "agent.py", "import sys; print(sys.argv)")
    node = write(home, "agent.mjs", "console.log(JSON.stringify(process.argv.slice(2)))")
    assert detour(home, "run", "--backend", "process", python, "a", "b c").stdout == "['agent.py', 'a', 'b c']\n"
    assert detour(home, "run", "--backend", "process", node, "a", "--flag").stdout == '["a","--flag"]\n'
    bare = detour(home, "run", "--backend", "process", "--", "bash", "-c", 'echo "$0 $1"', "x", "y")
    assert bare.stdout == "x y\n"
