"""Multi-seat tables: PettingZoo environments ``splitpoker.envs.table.asia_table_v0`` and
``splitpoker.envs.table.paigow_table_v0`` (``env()`` AEC, ``parallel_env()``), and the single-agent Gymnasium
variant ``splitpoker.envs.table.gym_env`` (``splitpoker/AsiaTable-v0``, ``splitpoker/PaiGowTable-v0``).

Nothing is imported here: PettingZoo stays an optional dependency (``pip install .[train]``), needed
only by the two ``*_table_v0`` modules.
"""
