"""compaction-lab's Streamlit dashboard: pages in views/, figures in charts.py, tables in tables.py.

Start it with ``compaction-lab dashboard`` (``dashboard.launch.launch``) or ``make dashboard``; every
number it shows comes from the ``compressor`` package.
"""
