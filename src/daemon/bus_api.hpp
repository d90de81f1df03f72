/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BusApi: org.rbdvolume1 on a bus (org.rbdvolume1.xml is the contract). The
 * Manager at /org/rbdvolume1, one Volume object per volume under
 * /org/rbdvolume1/volume, and an object manager. Mutating calls are for root
 * and reply when the work is over; status changes become PropertiesChanged,
 * coalesced by a defer source so one pass sends one signal per volume.
 */
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>

#include "bus/names.hpp"
#include "common/sd_ptr.hpp"
#include "daemon/event_sources.hpp"
#include "daemon/reconciler.hpp"
#include "host/given_passphrases.hpp"

namespace rbdvolume::daemon {

/* The caller of `message` is root: mutations are for root on any bus, whatever its policy. */
bool senderIsRoot(sd_bus_message *message);

class BusApi : public ReconcilerListener
{
public:
	BusApi(sd_bus *bus, sd_event *event, Reconciler &reconciler, GivenPassphrases &passphrases)
		: bus_(bus), reconciler_(reconciler), passphrases_(passphrases),
		  emit_(event, [this] { emitChanges(); })
	{
	}

	/* Registers the objects (the caller then requests the name). */
	Result<void> attach();

	void volumeAdded(const std::string &name) override;
	void volumeRemoved(const std::string &name) override;
	void statusChanged(const std::string &name) override;

	/* A pending call of ours to another service: dropped (cancelled) with the API. */
	void keep(SlotPtr slot) { slots_.push_back(std::move(slot)); }
	/* What PrepareForShutdown does besides telling the reconciler. */
	void onShutdown(std::function<void()> prepare) { prepareShutdown_ = std::move(prepare); }
	void prepareForShutdown()
	{
		reconciler_.hostStopping();
		if (prepareShutdown_)
			prepareShutdown_();
	}

	/* For the vtables' C callbacks. */
	Reconciler &reconciler() { return reconciler_; }
	GivenPassphrases &passphrases() { return passphrases_; }

private:
	void scheduleEmit();
	void emitChanges();

	sd_bus *bus_;
	Reconciler &reconciler_;
	GivenPassphrases &passphrases_;
	std::vector<SlotPtr> slots_;
	DeferredCall emit_; /* the changes of one loop iteration go out together */
	std::function<void()> prepareShutdown_;
	std::set<std::string> changed_;
	std::map<std::string, VolumeStatus> emitted_;
	std::string emittedSummary_;
};

} /* namespace rbdvolume::daemon */
