/*
 * output-graph.h - what the printers of a summarization graph share,
 * whatever the resource: the nodes and edges in JSON, the primary tree
 * and secondary links in XML, the nodes and edges in dot.  A graph's
 * figures are CPU (report, impact: ns shown in us or ms) or heap bytes
 * (report --resource=memory: two graphs of one structure, allocated and
 * freed); struct ccsg_figures says which, and the printers name and
 * format them from it.
 */
#ifndef CCSG_OUTPUT_GRAPH_H
#define CCSG_OUTPUT_GRAPH_H

#include <stdio.h>

#include "ccsg.h"

/* One vector a node shows: name (JSON key, XML attribute), the graph it
 * comes from, its self or its descendants' figures. */
struct ccsg_series {
	const char *name;
	const struct ccsg_graph *g;
	int desc;
};

struct ccsg_figures {
	const struct ccsg_graph *g; /* nodes, edges, names, hosts */
	int bytes;		    /* integers, not ns shown in us */
	size_t n;
	struct ccsg_series s[4];
	/* more of a node after the common fields (impact's), or NULL */
	void (*json_more)(FILE *f, const void *ctx, int32_t u);
	void (*xml_more)(FILE *f, const void *ctx, int32_t u);
	/* a dot node's figures after its name; its style after the label */
	void (*dot_label)(FILE *f, const void *ctx, int32_t u);
	void (*dot_style)(FILE *f, const void *ctx, int32_t u);
	void (*dot_edge_style)(FILE *f, const void *ctx, size_t e);
	const void *ctx;
};

extern const char *const ccsg_kind_names[]; /* "main", "function", "thread" */

/* Calls of a function node, threads of a thread node. */
int64_t ccsg_node_count(const struct ccsg_node *n);

/* A vector of the figures' unit: "[1.000, 2.500]" / "1.000 2.500". */
void ccsg_figures_json_vec(FILE *f, const struct ccsg_figures *fig,
			   const int64_t *v);
void ccsg_figures_xml_vec(FILE *f, const struct ccsg_figures *fig,
			  const int64_t *v);

/* "\"nodes\": [...],\n \"edges\": [...\n ]" */
void ccsg_graph_json(FILE *f, const struct ccsg_figures *fig);
/* "<?xml ...>\n<ccsg trace=\"PATH\" hosts=\"A B\"" */
void ccsg_graph_xml_open(FILE *f, const struct ccsg_graph *g);
/* " <primary>\n" the tree " </primary>\n <secondary>\n" links
 * " </secondary>\n" */
void ccsg_graph_xml_trees(FILE *f, const struct ccsg_figures *fig);
/* "digraph ccsg {\n...node [...];\n" */
void ccsg_graph_dot_open(FILE *f);
/* every node and edge, then "}\n" */
void ccsg_graph_dot_body(FILE *f, const struct ccsg_figures *fig);

#endif
