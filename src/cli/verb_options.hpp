/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The options the bus verbs share (--json, --no-wait, --timeout, ...), parsed one way. */
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bus/property_watch.hpp"
#include "common/result.hpp"

namespace rbdvolume::cli {

/* Which options a verb takes; or-ed together. */
enum VerbOption : unsigned {
	OptionJson = 1U << 0,		  /* --json */
	OptionNoWait = 1U << 1,		  /* --no-wait */
	OptionTimeout = 1U << 2,	  /* --timeout SECONDS, --timeout=SECONDS */
	OptionProgress = 1U << 3,	  /* --progress */
	OptionVerbose = 1U << 4,	  /* -v, --verbose */
	OptionQuiet = 1U << 5,		  /* -q, --quiet */
	OptionNoLegend = 1U << 6,	  /* --no-legend */
	OptionOutput = 1U << 7,		  /* --output FILE, --output=FILE */
	OptionIfStartCancelled = 1U << 8, /* --if-start-cancelled */
};

struct VerbOptions {
	std::vector<std::string> operands; /* what is not an option, in order */
	bool json = false;
	bool wait = true;
	bool progress = false;
	bool verbose = false;
	bool quiet = false;
	bool legend = true;	       /* a table's header line */
	uint64_t timeoutSeconds = 0;   /* 0: wait as long as it takes */
	std::string output;	       /* --output's file; "" for stdout */
	bool ifStartCancelled = false; /* down from ExecStopPost=: only after a cancelled start */
};

/* `args` parsed, accepting the options in `allowed`; "--" ends the options. */
Result<VerbOptions> parseVerbOptions(std::span<const std::string_view> args, unsigned allowed);

/*
 * Prints "rbd-volumectl VERB: PROBLEM" and "Usage: rbd-volumectl VERB SYNOPSIS" on
 * stderr; returns ExitUsage.
 */
int usageError(std::string_view verb, std::string_view problem, std::string_view synopsis);

/*
 * What prints each Activity as "NAME: ACTIVITY" on stderr while a call
 * waits, when progress is asked for or stderr is a terminal; empty otherwise.
 */
bus::PropertyCallback progressPrinter(const VerbOptions &options);

/* The volume names a verb got, each a valid name; at least one when `required`. */
Result<std::vector<std::string>> volumeNames(const VerbOptions &options, bool required);

} /* namespace rbdvolume::cli */
