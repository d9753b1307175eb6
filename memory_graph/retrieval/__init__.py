"""The retrieval pipeline: legs, RRF, PPR dampening, temporal decay, min_score and MMR."""

from .decay import decay_factor, decay_factors, is_evergreen
from .fusion import adapt_weights, leg_confidence, rrf
from .graph_leg import GraphHit, graph_leg
from .mmr import min_score_filter, mmr, similarity_matrix
from .pipeline import Candidate, LegResult, rank
from .ppr import personalized_pagerank, ppr_factors, ppr_lift

__all__ = [
    "Candidate", "GraphHit", "LegResult", "adapt_weights", "decay_factor", "decay_factors", "graph_leg",
    "is_evergreen", "leg_confidence", "min_score_filter", "mmr", "personalized_pagerank", "ppr_factors", "ppr_lift",
    "rank", "rrf", "similarity_matrix",
]
