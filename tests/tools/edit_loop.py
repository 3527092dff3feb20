"""One annotator editing the same few screens as fast as they can for a while (the concurrency test starts
two of these against one PostgreSQL project): each edit passes the version it loaded, a refused stale
write reloads and goes on. Prints what landed as JSON: the test compares it with the audit log.

    python tests/tools/edit_loop.py URL MEDIA SECONDS SEED
"""

import json
import random
import sys
import time

from sqlalchemy import select

from desktop_app.store import edits
from desktop_app.store.models import ActionBox, Episode, Step
from desktop_app.store.project import Project


def main(url: str, media: str, seconds: float, seed: int) -> None:
    rng = random.Random(seed)
    landed = {"create": 0, "update": 0, "delete": 0}
    stale = 0
    with Project.open(url, media) as project:
        with project.reading() as s:
            episodes = list(s.execute(select(Episode.id).where(Episode.kind == "sample")).scalars())
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            episode_id = rng.choice(episodes)
            with project.reading() as s:  # what the annotator sees when the screen (re)loads
                version = s.get(Episode, episode_id).version
                step = s.execute(select(Step).where(Step.episode_id == episode_id)).scalars().first()
                boxes = list(s.execute(select(ActionBox).where(ActionBox.step_id == step.id)).scalars())
            op = rng.choice(["create", "update", "update", "delete"] if boxes else ["create"])
            x = rng.randrange(0, 300)
            try:
                if op == "create":
                    edits.create_boxes(project, step.id, [{"x1": x, "y1": 5, "x2": x + 20, "y2": 30,
                                                           "label": rng.choice(["gold", "other"])}],
                                       expected_version=version)
                elif op == "update":
                    edits.update_boxes(project, [(rng.choice(boxes).id, {"x1": x, "x2": x + 40,
                                                                         "label": rng.choice(["gold", "distracted"])})],
                                       expected_version=version)
                else:
                    edits.delete_boxes(project, [rng.choice(boxes).id], expected_version=version)
                landed[op] += 1
            except edits.StaleEdit:
                stale += 1
    print(json.dumps({"landed": landed, "stale": stale}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]))
