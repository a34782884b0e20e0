package cli

import "log/slog"

// warnNoDigest warns on log, if noDigest, that the files of the model
// name record no SHA-256 of their tensors (model.Model.NoDigest,
// cm.Table.NoDigest, cm.Learner.NoDigest): an earlier phs wrote them, and
// they were read unchecked.
func warnNoDigest(log *slog.Logger, name string, noDigest bool) {
	if noDigest {
		log.Warn("the model's files record no SHA-256 of their tensors (an earlier phs wrote them): they were read unchecked, and a corruption would go unseen", "model", name)
	}
}
