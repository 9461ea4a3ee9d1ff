"""The verify's memory plan for a whole game before it is solved: ``morris verify --dry-run``'s
figures (values held at most, bytes read with the tiers read back) from the rule set's tiers
alone, so that a long run's verify is known to fit before its solve starts.

    python tools/verify_plan.py --rules lasker --max-memory 11.7GiB
"""

from __future__ import annotations

import json

import click

from solver.storage.sizes import parse_size
from solver.rules.rulesets import make_rules
from solver.storage.database import catalogue_key
from solver.tiers import whole_game_tiers
from solver.verify.check import plan_checks


@click.command()
@click.option("--rules", "name", default="standard", show_default=True)
@click.option("-o", "options", multiple=True, metavar="NAME=VALUE")
@click.option("--max-memory", type=str, default=None, metavar="SIZE", help="as morris verify's [default: half this machine's memory]")
def main(name: str, options: tuple[str, ...], max_memory: str | None) -> None:
    rules = make_rules(name, list(options))
    tiers = sorted(whole_game_tiers(rules), key=catalogue_key)
    plan = plan_checks(rules, tiers, parse_size(max_memory) if max_memory else None)
    click.echo(json.dumps({"rules": rules.describe(), "subspaces": len(tiers), **plan}))


if __name__ == "__main__":
    main()
