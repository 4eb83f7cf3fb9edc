import { serveThreadCalls } from '@askdata/common/async/thread-calls';
import type { AnalysisRequest } from './item-analysis';
import { chunkBodies, ReadItem, readItems } from './item-reading';

/** The thread that reads and chunks items' text for `ItemAnalysis` (at nice 10: bulk work). */
serveThreadCalls<AnalysisRequest, ReadItem[] | string[][]>((request) => ('read' in request ? readItems(request.read) : chunkBodies(request.chunk, request.options)));
