"""Tables -> plotly figures, shared by both apps: the plate pages (`ishihara`: overview, colour sets, resolution,
yes/no, failure modes; `delta_e`: psychometric fits; `paired`: grayscale and chain of thought; `comparison`: our
cells beside the papers'), the illusion pages (`illusions`), the scene pages (`scenes`) and people beside models
(`people`); `common` holds what every chart shares. Numbers come from `plates.analysis`; a chart lays them out."""
