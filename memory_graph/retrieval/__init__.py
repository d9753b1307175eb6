"""The retrieval pipeline: legs, fusion (convex or RRF), PPR dampening, temporal decay, min_score, collapse, MMR."""

from .decay import decay_factor, decay_factors, importance_factor, is_evergreen
from .fusion import convex, rrf
from .graph_leg import GraphHit, graph_leg, graph_result
from .mmr import first_of_each_group, min_score_filter, mmr, similarity_matrix
from .passages import passage_scores
from .pipeline import Candidate, LegResult, rank, rank_stable
from .ppr import personalized_pagerank, ppr_factors, ppr_reach

__all__ = [
    "Candidate", "GraphHit", "LegResult", "convex", "decay_factor", "decay_factors", "first_of_each_group",
    "graph_leg", "graph_result", "importance_factor", "is_evergreen", "min_score_filter", "mmr", "passage_scores",
    "personalized_pagerank", "ppr_factors", "ppr_reach", "rank", "rank_stable", "rrf", "similarity_matrix",
]
