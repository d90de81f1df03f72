/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "engine/executor.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "common/host_name.hpp"
#include "engine/format_marker.hpp"

namespace rbdvolume {

namespace {

/* The device a setup step acts on; nullptr for the other steps. */
const DeviceRef *deviceOf(const Step &step)
{
	return std::visit(
		[](const auto &s) -> const DeviceRef * {
			if constexpr (requires { s.device.fromMapStep(); })
				return &s.device;
			else
				return nullptr;
		},
		step);
}

/* One run of one plan: the device so far and the record as it changes. */
class Run
{
public:
	Run(Host &host, const VolumeSpec &spec, Ownership record, const Plan &plan)
		: host_(host), spec_(spec), mapping_(mapRequestOf(spec)),
		  image_(imageRequestOf(spec)), record_(std::move(record))
	{
		if (spec.encryption)
			crypt_ = cryptRequestOf(spec);
		/* Setup steps name the image's device when it was already mapped at planning. */
		const std::string cryptDevice = cryptDeviceOf(spec.name);
		for (const Step &step : plan.steps) {
			const DeviceRef *ref = deviceOf(step);
			if (ref && !ref->fromMapStep() && ref->resolve("") != cryptDevice)
				device_ = ref->resolve("");
		}
		if (device_.empty())
			device_ = record_.mappedDevice;
	}

	Result<Change> operator()(const UnmountStep &s);
	Result<Change> operator()(const UnmapStep &s);
	Result<Change> operator()(const StopOrphanStep & /*unused*/);
	Result<Change> operator()(const EnsureImageStep &s);
	Result<Change> operator()(const MapStep & /*unused*/);
	Result<Change> operator()(const FormatStep &s);
	Result<Change> operator()(const CheckStep &s);
	Result<Change> operator()(const MountStagingStep &s);
	Result<Change> operator()(const PublishStep &s);
	Result<Change> operator()(const GrowStep &s);
	Result<Change> operator()(const LuksFormatStep &s);
	Result<Change> operator()(const LuksOpenStep &s);
	Result<Change> operator()(const LuksGrowStep &s);
	Result<Change> operator()(const LuksCloseStep &s);

	/* What the step that just ran acted on and did; both reset for the next one. */
	std::string takeDetail() { return std::exchange(detail_, {}); }
	std::string takeDevice() { return std::exchange(stepDevice_, {}); }

private:
	Result<void> save() { return host_.records.save(spec_.name, record_); }
	Result<Change> saved(Result<Change> change);
	const std::string &device(const DeviceRef &ref) const { return ref.resolve(device_); }
	const PublishTarget *target(const std::string &path) const;
	void resolvePendingMap();
	void forgetTarget(const std::string &path);
	DeviceContents contentsBeforeFormat();
	Result<void> refuseIfMade(const std::string &dev, std::initializer_list<const char *> keys);
	void keepMade(const char *key, const std::string &dev, const std::string &type);
	/* One probe per device per run: nothing between two steps writes a signature but mkfs. */
	ProbeResult probeOnce(const std::string &device)
	{
		if (probedDevice_ != device) {
			probe_ = host_.probe.probe(device);
			probedDevice_ = device;
		}
		return probe_;
	}

	Host &host_;
	const VolumeSpec &spec_;
	const MapRequest mapping_;	    /* what the mapper is told of the volume */
	const ImageRequest image_;	    /* and the cluster */
	std::optional<CryptRequest> crypt_; /* and LUKS, when encrypted */
	Ownership record_;
	std::string device_;
	std::string probedDevice_;
	ProbeResult probe_;
	std::string detail_;
	std::string stepDevice_;
	bool imageCreated_ = false;   /* this run made the image: it reads as zeroes */
	std::string formattedDevice_; /* what this run's mkfs made a filesystem on */
};

/*
 * Zeroes when this run created the image or the cluster proves it was never
 * written; anything else, a failed ask included, leaves mkfs careful. Through
 * LUKS even an unwritten image's zeroes read as noise.
 */
DeviceContents Run::contentsBeforeFormat()
{
	if (spec_.encryption)
		return DeviceContents::Unknown;
	if (imageCreated_)
		return DeviceContents::Zeroes;
	auto unwritten = host_.images.readsZeroes(image_);
	return unwritten && *unwritten ? DeviceContents::Zeroes : DeviceContents::Unknown;
}

/*
 * What any host recorded in the image that it made there: a blank read of
 * `dev` now is a lost filesystem or header, never an invitation. A record
 * that cannot be read refuses as well.
 */
Result<void> Run::refuseIfMade(const std::string &dev, std::initializer_list<const char *> keys)
{
	std::vector<MadeRecord> records;
	for (const char *key : keys) {
		auto marker = host_.images.metadata(image_, key);
		if (!marker)
			return fail(marker.error().code,
				    "cannot read " + std::string(key) + " in the metadata of " +
					    spec_.image.display() + ": " + marker.error().message +
					    "; not writing to " + dev,
				    marker.error().sysErrno);
		if (*marker)
			records.push_back(MadeRecord{ key, **marker });
	}
	if (!records.empty())
		return fail(Errc::Conflict, markedButBlank(spec_.image, dev, records));
	return {};
}

/*
 * Keeps what this run just made on `dev` in the image's metadata, for every
 * host after. Not kept (an exclusive mapping of another client refuses the
 * lock the write needs), the step line says so; this host's record still
 * guards the image.
 */
void Run::keepMade(const char *key, const std::string &dev, const std::string &type)
{
	/* The host's name and the clock are read here: neither is I/O a port would bound. */
	const ProbeResult made = probeOnce(dev);
	const std::string marker = formatMarker(type, made.shows(type) ? made.uuid : std::string(),
						hostName(), std::chrono::system_clock::now());
	if (auto kept = host_.images.setMetadata(image_, key, marker); !kept)
		detail_ += "; not recorded in the image (" + kept.error().message + ")";
}

/* A change that happened but cannot be recorded is uncertain: our record lags the host. */
Result<Change> Run::saved(Result<Change> change)
{
	if (!change)
		return change;
	auto stored = save();
	if (!stored)
		return failUncertain(stored.error().code,
				     "could not record ownership: " + stored.error().message,
				     stored.error().sysErrno);
	return change;
}

const PublishTarget *Run::target(const std::string &path) const
{
	const auto it = std::find_if(spec_.publish.begin(), spec_.publish.end(),
				     [&](const PublishTarget &t) { return t.path == path; });
	return it == spec_.publish.end() ? nullptr : &*it;
}

void Run::forgetTarget(const std::string &path)
{
	auto &targets = record_.publishedTargets;
	targets.erase(std::remove(targets.begin(), targets.end(), path), targets.end());
}

Result<Change> Run::operator()(const UnmountStep &s)
{
	stepDevice_ = device_;
	detail_ = s.detach ? s.path + ", detached" : s.path;
	auto change = s.detach ? host_.mounter.detach(s.path) : host_.mounter.unmount(s.path);
	if (!change)
		return change;
	if (s.staging)
		record_.staged = false;
	else
		forgetTarget(s.path);
	return saved(std::move(change));
}

Result<Change> Run::operator()(const UnmapStep &s)
{
	stepDevice_ = s.device;
	auto change = host_.mapper.unmap(mapping_, s.device);
	if (!change)
		return change;
	record_.mappedDevice.clear();
	record_.mapPending = false;
	return saved(std::move(change));
}

Result<Change> Run::operator()(const StopOrphanStep & /*unused*/)
{
	detail_ = "the mapper process left without a device";
	return host_.mapper.stopOrphan(mapping_);
}

Result<Change> Run::operator()(const EnsureImageStep & /*unused*/)
{
	stepDevice_ = device_;
	auto ensured = host_.images.ensureImage(image_);
	if (!ensured)
		return tl::make_unexpected(ensured.error());
	imageCreated_ = ensured->created;
	detail_ = std::move(ensured->detail);
	return ensured->change;
}

Result<Change> Run::operator()(const MapStep & /*unused*/)
{
	/* Single writer: never map read-write what another client is using. */
	if (auto alone = host_.images.checkSoleWriter(image_); !alone)
		return tl::make_unexpected(alone.error());
	record_.mapPending = true;
	if (auto stored = save(); !stored)
		return tl::make_unexpected(stored.error());

	auto device = host_.mapper.map(mapping_);
	if (!device) {
		if (device.error().uncertain()) {
			resolvePendingMap();
		} else {
			record_.mapPending = false;
			(void)save();
		}
		return tl::make_unexpected(device.error());
	}
	device_ = *device;
	stepDevice_ = *device;
	record_.mappedDevice = *device;
	record_.mapPending = false;
	return saved(Change::Changed);
}

/*
 * A timed-out map is over once the port returns (the command was killed and
 * reaped), so look at once, before someone else can map the image and have
 * the next pass adopt their mapping. When even the list fails, the record
 * stays pending and the next pass adopts what appears.
 */
void Run::resolvePendingMap()
{
	auto mappings = host_.mapper.list();
	if (!mappings)
		return;
	const auto mapped =
		std::find_if(mappings->begin(), mappings->end(),
			     [&](const MappedImage &m) { return mapsImage(m, spec_.image); });
	if (mapped != mappings->end())
		record_.mappedDevice = mapped->device;
	record_.mapPending = false;
	(void)save();
}

/* Refuse, don't guess: probe again right before mkfs, whatever the plan assumed. */
Result<Change> Run::operator()(const FormatStep &s)
{
	const std::string &dev = device(s.device);
	const FilesystemSpec &fs = *spec_.filesystem;
	const std::string wanted = fsTypeName(fs.type);
	stepDevice_ = dev;
	const ProbeResult probe = probeOnce(dev);
	switch (probe.kind) {
	case ProbeKind::Signature:
		if (probe.type == wanted)
			return Change::Unchanged;
		return fail(Errc::Conflict, dev + " carries '" + probe.type + "', the spec says '" +
						    wanted + "'; refusing to format it");
	case ProbeKind::Ambivalent:
		return fail(Errc::Conflict, dev + " shows more than one signature (" + probe.type +
						    "); refusing to format it");
	case ProbeKind::Data:
		return fail(Errc::Conflict, dev + " holds data (" + probe.type +
						    ") but no signature; refusing to format it");
	case ProbeKind::Unprobed:
	case ProbeKind::Failed:
		return fail(Errc::Io, "could not probe " + dev + ": " + probe.type);
	case ProbeKind::Blank:
		break;
	}
	if (record_.formatted)
		return fail(Errc::Conflict,
			    "rbd-volume formatted " + spec_.image.display() + " before, but " +
				    dev + " now looks blank; refusing to format it again");
	if (fs.format == FormatPolicy::Never)
		return fail(Errc::Conflict, dev + " is blank and the spec says format = never");
	if (spec_.readOnly())
		return fail(Errc::Conflict, dev + " is blank and the volume is read-only");
	/* Through LUKS the header is ours; on the image itself, either record forbids mkfs. */
	auto unmade = spec_.encryption ? refuseIfMade(dev, { FormattedKey })
				       : refuseIfMade(dev, { EncryptedKey, FormattedKey });
	if (!unmade)
		return tl::make_unexpected(unmade.error());

	probedDevice_.clear(); /* mkfs changes what a probe sees */
	auto formatted = host_.filesystems.format(dev, fs, contentsBeforeFormat());
	if (!formatted) {
		/* A timed-out mkfs may have run: if our filesystem shows now, it is ours. */
		if (formatted.error().uncertain() && probeOnce(dev).shows(wanted)) {
			record_.formatted = true;
			(void)save();
			keepMade(FormattedKey, dev, wanted);
		}
		return tl::make_unexpected(formatted.error());
	}
	detail_ = std::move(*formatted);
	formattedDevice_ = dev;
	record_.formatted = true;
	/* A fresh filesystem fills the device; unknown size only costs a no-op grow later. */
	if (auto size = host_.probe.deviceSize(dev))
		record_.sizedBytes = *size;
	auto stored = saved(Change::Changed);
	keepMade(FormattedKey, dev, wanted);
	return stored;
}

/*
 * Grows only when the device outgrew what the filesystem was made or last
 * grown for. The size is one ioctl; the probe that guards an offline grow
 * runs only when a tool might run.
 */
Result<Change> Run::operator()(const GrowStep &s)
{
	const std::string &dev = device(s.device);
	stepDevice_ = dev;
	auto size = host_.probe.deviceSize(dev);
	if (!size)
		return tl::make_unexpected(size.error());
	if (record_.sizedBytes != 0 && !outgrew(*size, record_.sizedBytes))
		return Change::Unchanged;
	/* Offline, nothing vouches for the device yet: grow only the spec's filesystem. */
	const std::string wanted = fsTypeName(spec_.filesystem->type);
	if (!s.online) {
		const ProbeResult probe = probeOnce(dev);
		if (!probe.shows(wanted))
			return fail(Errc::Conflict,
				    dev + " does not carry '" + wanted + "'; refusing to grow it");
		/* The superblock tells what an unknown record does not. */
		if (record_.sizedBytes == 0 && probe.filesystemBytes != 0) {
			record_.sizedBytes = probe.filesystemBytes;
			if (!outgrew(*size, record_.sizedBytes))
				return saved(Change::Unchanged);
		}
	}
	auto grown = host_.filesystems.grow(dev, s.online ? spec_.staging.path : std::string(),
					    *spec_.filesystem);
	if (!grown)
		return grown;
	detail_ =
		(record_.sizedBytes == 0 ? std::string("to ")
					 : "from " + std::to_string(record_.sizedBytes) + " to ") +
		std::to_string(*size) + " bytes, " + (s.online ? "online" : "offline");
	record_.sizedBytes = *size;
	return saved(*grown);
}

/*
 * Never encrypt over anything: probe right before, as for mkfs. The record
 * says luksPending before the header is written, so a format cut short at
 * any point (a crash, a timeout whose call goes on) is ours to finish: the
 * port keeps a header it finds and zeroes its mapping again.
 */
Result<Change> Run::operator()(const LuksFormatStep &s)
{
	const std::string &dev = device(s.device);
	stepDevice_ = dev;
	const ProbeResult probe = probeOnce(dev);
	switch (probe.kind) {
	case ProbeKind::Signature:
		if (probe.type != LuksSignature)
			return fail(Errc::Conflict, dev + " carries '" + probe.type +
							    "'; refusing to encrypt over it");
		if (!record_.luksPending)
			return Change::Unchanged;
		/* The image's record is written only once a format is over: nothing to finish. */
		if (auto marker = host_.images.metadata(image_, EncryptedKey); marker && *marker) {
			record_.luksPending = false;
			record_.luksFormatted = true;
			return saved(Change::Unchanged);
		}
		break; /* our header: finish its format */
	case ProbeKind::Ambivalent:
		return fail(Errc::Conflict, dev + " shows more than one signature (" + probe.type +
						    "); refusing to encrypt over it");
	case ProbeKind::Data:
		return fail(Errc::Conflict,
			    dev + " holds data (" + probe.type +
				    ") but no signature; refusing to encrypt over it");
	case ProbeKind::Unprobed:
	case ProbeKind::Failed:
		return fail(Errc::Io, "could not probe " + dev + ": " + probe.type);
	case ProbeKind::Blank:
		if (record_.luksFormatted || record_.formatted)
			return fail(Errc::Conflict,
				    "rbd-volume made a header or a filesystem on " +
					    spec_.image.display() + " before, but " + dev +
					    " now looks blank; refusing to write one again");
		break;
	}
	const bool neverFormat =
		spec_.filesystem && spec_.filesystem->format == FormatPolicy::Never;
	if (spec_.readOnly() || neverFormat)
		return fail(Errc::Conflict,
			    dev + " is blank and the " +
				    (neverFormat ? std::string("spec says format = never")
						 : std::string("volume is read-only")));
	/* A header cut short is finished unasked only when no record says one was made. */
	if (auto unmade = refuseIfMade(dev, { EncryptedKey, FormattedKey }); !unmade)
		return tl::make_unexpected(unmade.error());

	record_.luksPending = true;
	if (auto stored = save(); !stored)
		return tl::make_unexpected(stored.error());
	probedDevice_.clear(); /* the header changes what a probe sees */
	auto made = host_.crypt.formatHeader(*crypt_, dev);
	if (!made)
		return tl::make_unexpected(made.error());
	detail_ = std::move(*made);
	record_.luksPending = false;
	record_.luksFormatted = true;
	auto stored = saved(Change::Changed);
	keepMade(EncryptedKey, dev, LuksSignature);
	return stored;
}

/* The mapping's name is our marker: nothing but the kernel's table needs to remember it. */
Result<Change> Run::operator()(const LuksOpenStep &s)
{
	const std::string &dev = device(s.device);
	stepDevice_ = dev;
	auto opened = host_.crypt.open(*crypt_, dev);
	if (!opened)
		return tl::make_unexpected(opened.error());
	detail_ = dev + " as " + *opened;
	auto size = host_.probe.deviceSize(dev);
	record_.cryptSpanBytes = size ? *size : 0;
	return saved(Change::Changed);
}

Result<Change> Run::operator()(const LuksGrowStep &s)
{
	const std::string &dev = device(s.device);
	stepDevice_ = cryptDeviceOf(spec_.name);
	auto size = host_.probe.deviceSize(dev);
	if (!size)
		return tl::make_unexpected(size.error());
	auto grown = host_.crypt.resize(spec_.name);
	if (!grown)
		return grown;
	if (*grown == Change::Changed)
		detail_ = "to fill " + dev + ", " + std::to_string(*size) + " bytes";
	record_.cryptSpanBytes = *size;
	return saved(*grown);
}

Result<Change> Run::operator()(const LuksCloseStep &s)
{
	stepDevice_ = "/dev/mapper/" + s.name;
	auto closed = host_.crypt.close(spec_.name);
	if (!closed)
		return closed;
	record_.cryptSpanBytes = 0;
	return saved(std::move(closed));
}

Result<Change> Run::operator()(const CheckStep &s)
{
	stepDevice_ = device(s.device);
	/* As kubelet does: fsck guards a filesystem found, not one mkfs just made. */
	if (stepDevice_ == formattedDevice_) {
		detail_ = "not checked: formatted in this run";
		return Change::Unchanged;
	}
	auto checked = host_.filesystems.check(stepDevice_, *spec_.filesystem);
	if (!checked)
		return tl::make_unexpected(checked.error());
	detail_ = std::move(*checked);
	return Change::Unchanged;
}

Result<Change> Run::operator()(const MountStagingStep &s)
{
	MountRequest request;
	request.source = device(s.device);
	request.target = spec_.staging.path;
	stepDevice_ = request.source;
	detail_ = request.target;
	request.readOnly = spec_.readOnly();
	request.owner = spec_.name;

	record_.staged = true;
	if (auto stored = save(); !stored)
		return tl::make_unexpected(stored.error());

	Result<Change> change = Change::Unchanged;
	if (spec_.mode == VolumeMode::Block) {
		change = host_.mounter.bind(request);
	} else {
		request.fsType = fsTypeName(spec_.filesystem->type);
		request.options = spec_.staging.options;
		change = host_.mounter.mount(request);
	}
	if (!change && !change.error().uncertain()) {
		record_.staged = false;
		(void)save();
	}
	return change;
}

Result<Change> Run::operator()(const PublishStep &s)
{
	const PublishTarget *wanted = target(s.target);
	if (!wanted)
		return fail(Errc::Internal,
			    "'" + s.target + "' is not a publish target of the spec");

	MountRequest request;
	request.source = spec_.staging.path;
	request.target = s.target;
	stepDevice_ = device_;
	detail_ = s.target;
	request.readOnly = wanted->readOnly;
	request.options = wanted->options;
	request.owner = spec_.name;

	if (!record_.ownsTarget(s.target))
		record_.publishedTargets.push_back(s.target);
	if (auto stored = save(); !stored)
		return tl::make_unexpected(stored.error());

	auto change = host_.mounter.bind(request);
	if (!change && !change.error().uncertain()) {
		forgetTarget(s.target);
		(void)save();
	}
	return change;
}

} /* namespace */

bool ExecutionReport::ok() const
{
	return firstError() == nullptr;
}

bool ExecutionReport::uncertain() const
{
	return std::any_of(outcomes.begin(), outcomes.end(),
			   [](const StepOutcome &o) { return o.uncertain; });
}

const Error *ExecutionReport::firstError() const
{
	for (const StepOutcome &outcome : outcomes) {
		if (outcome.error)
			return &*outcome.error;
	}
	return nullptr;
}

ExecutionReport Executor::execute(const Plan &plan, const VolumeSpec &spec, Ownership record)
{
	ExecutionReport report;
	Run run(host_, spec, std::move(record), plan);
	for (const Step &step : plan.steps) {
		StepOutcome outcome{ step, Change::Unchanged, std::nullopt, false, {}, {}, {} };
		if (onStep_)
			onStep_(step);
		const auto started = std::chrono::steady_clock::now();
		Result<Change> result = std::visit(run, step);
		outcome.duration = std::chrono::duration_cast<std::chrono::microseconds>(
			std::chrono::steady_clock::now() - started);
		outcome.device = run.takeDevice();
		outcome.detail = run.takeDetail();
		if (result) {
			outcome.change = *result;
		} else {
			outcome.uncertain = result.error().uncertain();
			outcome.error = result.error();
		}
		if (onDone_)
			onDone_(outcome);
		const bool failed = outcome.error.has_value();
		report.outcomes.push_back(std::move(outcome));
		if (failed)
			break;
	}
	return report;
}

} /* namespace rbdvolume */
