"""Planning a run: episode ids, shards and the default result folder."""

from __future__ import annotations

from escapebench.bench.plan import episode_id, plan_run
from escapebench.bench.settings import RunSettings


def test_plan_sorts_episode_ids_and_shards_deal_them_round_robin(mini_game_file, tmp_path):
    s = RunSettings(games=[str(mini_game_file)], repeats=2, out=tmp_path)
    whole = [e.episode_id for e in plan_run(s, "none", {}, "explorer").specs]
    assert whole == sorted(whole) and len(whole) == 6
    assert whole[0] == episode_id("mini-easy", "explorer", "none", 0)
    assert whole[0] == "mini-easy__explorer__none__r0"
    shards = []
    for i in (1, 2, 3):
        s.shard = (i, 3)
        shards.append([e.episode_id for e in plan_run(s, "none", {}, "explorer").specs])
    assert sorted(sum(shards, [])) == whole and all(len(x) == 2 for x in shards)
    assert shards[0] == whole[0::3]


def test_the_default_folder_depends_on_the_settings_only(mini_game_file):
    a = plan_run(RunSettings(games=[str(mini_game_file)]), "none", {}, "explorer").out
    b = plan_run(RunSettings(games=[str(mini_game_file)]), "none", {}, "explorer").out
    c = plan_run(RunSettings(games=[str(mini_game_file)], patience=7), "none", {}, "explorer")
    assert a == b != c.out and a.parts[0] == "runs" and a.name.startswith("explorer__none__")
