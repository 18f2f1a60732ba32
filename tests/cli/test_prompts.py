"""`plates prompts` (`plates.cli.prompts`): the table fits 100 columns and keeps every field, and a user's prompt
file is listed and validated."""

from __future__ import annotations

from plates.cli import main


def test_prompts_lists_and_validates_a_users_prompt_file(tmp_path, capsys):

    if True:
        good, bad = tmp_path / "mine.toml", tmp_path / "bad.toml"
        good.write_text('[[prompt]]\nname = "my-open"\nkind = "open"\nlabel_space = "cbe"\ntemplate = "Which?"\n')
        bad.write_text('[[prompt]]\nname = "my-yn"\nkind = "yesno"\nlabel_space = "cbe"\ntemplate = "Is it?"\n')
        assert main(["prompts", "--prompt-file", str(good)]) == 0
        assert any(line.startswith("my-open ") for line in capsys.readouterr().out.splitlines())
        assert main(["prompts", "--prompt-file", str(bad)]) == 2
        assert "my-yn" in capsys.readouterr().err


def test_prompts_fits_100_columns_and_keeps_every_field():
    from plates.cli.prompts import table_lines
    from plates.tasks.prompts import PROMPTS, list_prompts

    rows = list_prompts()
    for text in (False, True):
        lines = table_lines(rows, width=100, text=text)
        assert max(len(line) for line in lines) <= 100
        joined = " ".join(" ".join(lines).split())
        for row in rows:
            assert " ".join(row["source"].split()) in joined
            if text:
                assert " ".join(row["first_line"].split()) in joined
    starts = [line.split()[0] for line in table_lines(rows) if not line.startswith(" ")]
    assert starts == ["name", *PROMPTS]
