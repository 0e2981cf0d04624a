"""The gardener (docs/gardener.md): findings about lessons that age and counters cannot judge — near duplicates,
superseded lessons and expired ephemera — reported first, retired only when a person applies them.

text: normalisation and similarity · signatures: MinHash/LSH bands kept at write time · ephemera: the patterns ·
detect: the three detectors · inventory: a run that turns detections into findings · apply: apply, dismiss, undo ·
selectors: reading findings · retiring: lessons an open finding proposes to retire, as lists and searches rank them.
"""
