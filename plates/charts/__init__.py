"""Tables -> plotly figures, shared by both apps: the plate pages (`overview`; `ishihara`: colour sets,
resolution, and the rules every chart keeps; `yes_no`; `failure_modes`; `delta_e`: psychometric fits; `paired`:
grayscale and chain of thought; `comparison`: our cells beside the papers'), the illusion pages (`illusions`), the
scene pages (`scenes`) and people beside models (`people`); `common` holds what every chart shares. Numbers come
from `plates.analysis`; a chart lays them out."""
