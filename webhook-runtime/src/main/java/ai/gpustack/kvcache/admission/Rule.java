package ai.gpustack.kvcache.admission;

/**
 * The admission rule of one route: reads the request's object as its kind and allows it (on a
 * mutating route, with the patch that attaches it) or refuses it with every problem found at once.
 * Pure and thread-safe; cluster state comes from the view it was built with. A rule reports
 * malformed input as problems naming the field; anything it throws is a bug.
 */
interface Rule {
  Decision decide(Request request);
}
