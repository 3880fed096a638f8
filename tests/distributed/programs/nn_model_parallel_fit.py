"""Model-parallel ``fit`` (``distributed="model"``) on every rank == single-process ``fit``
(run under mpiexec -n 1, 2, 3).

Each rank trains a model with ``distributed="model"`` (Conv1D split by batch or by
length, Dense by columns, the rest replicated) and then, alone, the same model from the
same seed without it (the oracle): the losses and metrics of every epoch, the final
weights, the optimizer's slots and ``evaluate``/``predict`` afterwards must agree to
float32 rounding.  Cases: SGD, SGD with momentum, Adam; dropout; BatchNormalization;
Flatten; causal padding, strides and dilation, float64 data; batches and lengths that
do not divide by the number of ranks, and a batch with fewer samples than ranks;
validation data and callbacks; weighted metrics (compile's ``weighted_metrics``) with
sample weights (split by ``validation_split``: weighted validation) or class weights;
``clipnorm``, ``global_clipnorm``, ``clipvalue``, ``weight_decay`` (SGD, AdamW),
kernel, bias and activity regularizers on split and whole weights, ``loss_weights``;
functional models cut at their split layers (``model_parallel_graph``): two outputs after
``Masking`` and a SimpleRNN (a masked sequence output), a branch between split layers.
For the batch split, the activations stay batch tiles between the convolutions and the
per-sample layers (``FORMS``).  Then the errors: a layer that cannot run
model-parallel, a bad ``conv_split``, a NaN loss — raised on every rank alike (no
hang).  With ``--verbose`` one fit draws its progress (rank 0 only).  Prints
``OK <rank>``.
"""
import sys

import numpy as np
from nn_data_parallel import data  # the program beside this one: the same data

from phylanx import distributed as dist
from phylanx import nn

rank, count = dist.find_here(), dist.num_localities()


def conv_model(optimizer):
    return [nn.Input((24, 3)), nn.Conv1D(8, 3, activation="relu"), nn.MaxPooling1D(2),
            nn.Conv1D(6, 5, padding="same", activation="tanh"), nn.GlobalAveragePooling1D(),
            nn.Dropout(0.3), nn.Dense(5, activation="relu"), nn.Dense(3, activation="softmax")]


def flat_model(optimizer):
    # strides and dilation in the split convolutions, a Flatten between them and Dense
    return [nn.Input((24, 3)), nn.Conv1D(4, 3, strides=2, activation="relu"),
            nn.Conv1D(5, 3, dilation_rate=2), nn.Flatten(), nn.Dense(3, activation="softmax")]


def bn_model(optimizer):
    return [nn.Input((24, 3)), nn.Conv1D(8, 3, use_bias=False),
            nn.BatchNormalization(momentum=0.8), nn.Activation("relu"), nn.MaxPooling1D(2),
            nn.Conv1D(8, 5, activation="relu"), nn.GlobalMaxPooling1D(),
            nn.Dense(3, activation="softmax")]


def causal_model(optimizer):
    # causal and same padding, dilation and strides; average pooling and Flatten on the
    # batch tiles between the convolutions and before the Dense
    return [nn.Input((24, 3)),
            nn.Conv1D(6, 3, padding="causal", dilation_rate=2, activation="relu"),
            nn.AveragePooling1D(2), nn.Conv1D(5, 3, strides=2, padding="same",
                                              activation="tanh"),
            nn.Flatten(), nn.Dense(3, activation="softmax")]


def short_model(optimizer):
    # the second Conv1D's input has one step: split by length, it is all on rank 0 and
    # the other ranks' tiles are empty (not a batch tiling)
    return [nn.Input((24, 3)), nn.Conv1D(4, 3, strides=24, padding="same"),
            nn.Conv1D(5, 2, padding="causal", activation="relu"), nn.Flatten(),
            nn.Dense(3, activation="softmax")]


def reg_model(optimizer):
    # regularized weights, whole (the Conv1D's) and split by columns (the Dense ones);
    # a Conv1D with an activity regularizer is not split: it runs replicated, with the
    # layers after it (the pooling), in one stage
    return [nn.Input((24, 3)),
            nn.Conv1D(4, 3, activation="relu", bias_regularizer=nn.regularizers.L1(0.01)),
            nn.Conv1D(4, 3, activity_regularizer=nn.regularizers.L2(0.01)),
            nn.GlobalAveragePooling1D(activity_regularizer=nn.regularizers.L2(0.05)),
            nn.Dense(6, activation="tanh", kernel_regularizer=nn.regularizers.L2(0.05),
                     bias_regularizer=nn.regularizers.L1L2(0.01, 0.02)),
            nn.Dense(3, activation="softmax", kernel_regularizer="l1")]


#: for the batch split, whether the model's input and each stage's output is this
#: rank's batch tile: activations are gathered only before a stage that needs the
#: whole batch (a Dense split by columns, Dropout's draws, BatchNormalization's
#: statistics, a replicated Dense), never between the convolutions
FORMS = {conv_model: [False, True, True, True, False, False, False],
         flat_model: [False, True, True, True, False],
         bn_model: [False, True, False, True, True, False],
         causal_model: [False, True, True, True, True, False],
         reg_model: [False, True, False, False, False]}


def build(make, optimizer, weighted=False, loss_weights=None):
    nn.set_seed(7)
    nn.clear_session()
    m = nn.Sequential(make(optimizer))
    m.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy",
              metrics=["accuracy"], weighted_metrics=["accuracy"] if weighted else None,
              loss_weights=loss_weights)
    return m


class Logs(nn.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_epoch_end(self, epoch, logs=None):
        self.seen.append((epoch, dict(logs)))


def train(mode, x, y, make, optimizer, batch_size, loss_weights=None, **kw):
    weighted = "sample_weight" in kw or "class_weight" in kw
    m = build(make, optimizer, weighted, loss_weights)
    if mode and rank != 0:            # fit's broadcast must replace these
        m.set_weights([w + 1.0 for w in m.get_weights()])
    logs = Logs()
    extra = {"distributed": "model", "conv_split": mode} if mode else {}
    h = m.fit(x, y, batch_size=batch_size, epochs=2, verbose=0, callbacks=[logs],
              **extra, **kw)
    assert [e for e, _ in logs.seen] == [0, 1], logs.seen
    slots = [v.copy() for s in m.optimizer.slot_names() for v in m.optimizer.state[s]]
    return m, h.history, m.get_weights(), slots


def close(got, want, what, rtol=1e-4, atol=2e-6):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol,
                               err_msg=f"rank {rank} of {count}: {what}")


def check(split, make, optimizer, batch_size, what, n=40, dtype=np.float32, **kw):
    x, y = data(n)
    x = x.astype(dtype)
    what = f"{what} ({split} split, batch {batch_size}, {n} samples)"
    m, got_h, got_w, got_s = train(split, x, y, make, optimizer(), batch_size, **kw)
    want, want_h, want_w, want_s = train(None, x, y, make, optimizer(), batch_size, **kw)
    trainer = m._programs[f"train:model:{split}"]
    if split == "batch":
        assert trainer._forms() == FORMS[make], (what, trainer._forms())
    # the Dense layers really were split: this rank held only its columns
    stages = trainer.stages
    blocks = [p for s in stages if type(s).__name__ == "_DenseStage" for p in s.params]
    assert blocks and all(p.block.shape[-1] == len(np.array_split(
        np.arange(p.weight.value.shape[-1]), count)[rank]) for p in blocks), what
    assert got_h.keys() == want_h.keys(), (got_h, want_h)
    if "weighted_accuracy" in want_h:   # (the weights count: the check could fail)
        assert not np.allclose(want_h["weighted_accuracy"], want_h["accuracy"]), what
    for key in want_h:
        close(got_h[key], want_h[key], f"{what}: {key}", rtol=2e-5, atol=1e-6)
    assert len(got_w) == len(want_w)
    for i, (g, w) in enumerate(zip(got_w, want_w)):
        close(g, w, f"{what}: weight {i} {m.weights[i].name}")
    assert len(got_s) == len(want_s), what
    for g, w in zip(got_s, want_s):
        close(g, w, f"{what}: optimizer slot", atol=1e-5)
    close(m.predict(x[:7]), want.predict(x[:7]), f"{what}: predict after training")
    close(m.evaluate(x, y, verbose=0), want.evaluate(x, y, verbose=0), f"{what}: evaluate")


def masked_two_outputs():
    # a split Dense, then Masking (relu's zeros: some steps masked), an RNN and two
    # outputs: a masked sequence (its loss and accuracy over the unmasked steps) and a
    # value from the masked average of the steps
    x = nn.Input((8,))
    h = nn.Dense(6, activation="relu", kernel_regularizer=nn.regularizers.L2(0.01))(x)
    seq = nn.SimpleRNN(4, return_sequences=True)(nn.Masking(0.0)(nn.Reshape((3, 2))(h)))
    tags = nn.Dense(3, activation="softmax", name="tags")(seq)
    value = nn.Dense(1, name="value", activity_regularizer="l2")(
        nn.Dropout(0.2)(nn.GlobalAveragePooling1D()(seq)))
    return x, [tags, value], {"loss": ["sparse_categorical_crossentropy", "mse"],
                              "loss_weights": [1.0, 0.5], "metrics": [["accuracy"], []]}


def conv_branches():
    # split Conv1D and Dense layers around a block with a branch (two poolings added)
    x = nn.Input((12, 3))
    h = nn.Conv1D(4, 3, activation="relu")(x)
    h = nn.Add()([nn.GlobalAveragePooling1D()(h), nn.GlobalMaxPooling1D()(h)])
    h = nn.Dense(6, activation="tanh")(h)
    return x, nn.Dense(3, activation="softmax")(h), {
        "loss": "sparse_categorical_crossentropy", "metrics": ["accuracy"]}


def check_graph(split, make, optimizer, batch_size, what, x, y, **kw):
    """A functional model (branches, several outputs, masks) == one process's."""
    def run(mode):
        nn.set_seed(7)
        nn.clear_session()
        inputs, outputs, options = make()
        m = nn.Model(inputs, outputs)
        m.compile(optimizer=optimizer(), **options)
        extra = {"distributed": "model", "conv_split": mode} if mode else {}
        h = m.fit(x, y, batch_size=batch_size, epochs=2, verbose=0, **extra, **kw)
        return m, h.history
    m, got = run(split)
    want_m, want = run(None)
    what = f"{what} ({split} split, batch {batch_size})"
    kinds = [type(s).__name__ for s in m._programs[f"train:model:{split}"].stages]
    assert "BlockStage" in kinds and len(set(kinds)) > 1, (what, kinds)
    assert got.keys() == want.keys(), (got, want)
    for key in want:
        close(got[key], want[key], f"{what}: {key}", rtol=2e-5, atol=1e-6)
    for i, (g, w) in enumerate(zip(m.get_weights(), want_m.get_weights(), strict=True)):
        close(g, w, f"{what}: weight {i} {m.weights[i].name}")
    for g, w in zip(*(([v for s in k.optimizer.slot_names() for v in k.optimizer.state[s]])
                      for k in (m, want_m)), strict=True):
        close(g, w, f"{what}: optimizer slot", atol=1e-5)


def graphs():
    rng = np.random.default_rng(11)
    x = rng.normal(size=(20, 8)).astype(np.float32)
    tags, value = rng.integers(0, 3, (20, 3)), rng.normal(size=(20, 1)).astype(np.float32)
    nn.set_seed(7)
    nn.clear_session()
    first = nn.Model(*masked_two_outputs()[:2]).layers[0]      # (the deepest: Dense(6))
    kernel, bias = (w.value for w in first.weights)
    masked = (np.maximum(x @ kernel + bias, 0).reshape(20, 3, 2) == 0).all(axis=-1)
    assert first.units == 6 and 0 < masked.sum() < masked.size / 2, masked.sum()
    check_graph("batch", masked_two_outputs, lambda: nn.SGD(0.2, momentum=0.9,
                                                            global_clipnorm=0.3), 6,
                "two outputs, masks", x, [tags, value])
    x, y = data(18)
    x = x[:, :12]
    weights = np.random.default_rng(5).uniform(0.0, 2.0, 18).astype(np.float32)
    check_graph("batch", conv_branches, lambda: nn.Adam(0.01), 5, "branches", x, y,
                sample_weight=weights)


def expect_error(fn, *parts):
    try:
        fn()
    except nn.TrainingDivergedError:
        raise
    except Exception as e:          # noqa: BLE001 - checked below
        text = str(e)
        for part in parts:
            assert part in text, (part, text)
        return text
    raise AssertionError(f"rank {rank}: no error, expected one with {parts}")


def errors():
    x, y = data(8)
    here = __file__.rsplit("/", 1)[-1]
    # a Dense layer used twice (its column blocks would be two copies)
    shared = nn.Dense(4, activation="tanh")
    inputs = nn.Input((24, 3))
    h = nn.GlobalAveragePooling1D()(nn.Conv1D(4, 3)(inputs))
    m = nn.Model(inputs, nn.Dense(3, activation="softmax")(shared(shared(h))))
    m.compile("sgd", "sparse_categorical_crossentropy")
    expect_error(lambda: m.fit(x, y, verbose=0, distributed="model"),
                 here, f"layer '{shared.name}' (Dense) is used 2 times")
    m = build(conv_model, nn.SGD(0.1))
    expect_error(lambda: m.fit(x, y, verbose=0, distributed="model", conv_split="rows"),
                 here, "conv_split must be 'batch' or 'length'")
    expect_error(lambda: m.fit(x, y, verbose=0, conv_split="length"),
                 "conv_split ('batch' or 'length') is for distributed='model'")
    m = nn.Sequential([nn.Input((24, 3)), nn.GlobalAveragePooling1D()])
    m.compile("sgd", "mse")
    expect_error(lambda: m.fit(x, np.zeros((8, 3)), verbose=0, distributed="model"),
                 here, "no Conv1D, and no Dense with at least")
    # a Dense with fewer units than ranks (a Dense(1) output: no column for some rank)
    # runs replicated, and training still equals one process's
    def narrow(split):
        nn.set_seed(7)
        nn.clear_session()
        m = nn.Sequential([nn.Input((24, 3)), nn.Conv1D(4, 3, activation="relu"),
                           nn.GlobalAveragePooling1D(),
                           nn.Dense(1, activation="sigmoid", name="narrow")])
        m.compile(nn.SGD(0.1), "binary_crossentropy")
        extra = {"distributed": "model", "conv_split": split} if split else {}
        h = m.fit(x, (y == 1).astype(np.float32)[:, None], batch_size=4, epochs=2,
                  verbose=0, **extra)
        return h.history["loss"], m.get_weights()
    (got_loss, got_w), (want_loss, want_w) = narrow("batch"), narrow(None)
    close(got_loss, want_loss, "Dense(1): losses", rtol=2e-5, atol=1e-6)
    for g, w in zip(got_w, want_w):
        close(g, w, "Dense(1): weights")
    # a NaN loss stops every rank at the same batch, with the weights before it
    m = build(conv_model, nn.SGD(0.1))
    before = m.get_weights()
    bad = x.copy()
    bad[3, 5, 1] = np.nan
    try:
        m.fit(bad, y, batch_size=4, epochs=2, verbose=0, shuffle=False, distributed="model")
    except nn.TrainingDivergedError as e:
        assert "epoch 1, batch 1" in str(e), e
        assert e.history.history == {}, e.history.history
    else:
        raise AssertionError("a NaN loss must stop training")
    for g, w in zip(m.get_weights(), before):
        close(g, w, "weights after a NaN loss")


def main():
    # (the optimizer's options ride on existing cases: a new case costs 3-5 s a job)
    check("batch", conv_model, lambda: nn.AdamW(0.01, weight_decay=0.1, clipvalue=0.01), 12,
          "adamw, clipvalue, loss_weights, dropout", loss_weights=[2.0])
    check("length", conv_model, lambda: nn.Adam(0.01), 12, "adam, dropout")
    # (weighted metrics ride on two of the cases: a new case cost 3-4 s a job)
    weights = np.random.default_rng(5).uniform(0.0, 2.0, 40).astype(np.float32)
    check("batch", conv_model, lambda: nn.SGD(0.1, momentum=0.9), 10,
          "sgd momentum, sample weights", validation_split=0.25, sample_weight=weights)
    check("length", flat_model, lambda: nn.SGD(0.1, momentum=0.9, nesterov=True,
                                               global_clipnorm=0.05, weight_decay=0.05), 16,
          "nesterov, global_clipnorm, weight_decay, strides, dilation, flatten")
    check("batch", flat_model, lambda: nn.RMSprop(0.01), 7, "rmsprop, flatten, class weights",
          class_weight={0: 0.5, 1: 2.0, 2: 1.0})
    check("batch", bn_model, lambda: nn.SGD(0.05), 16, "batchnorm")
    check("batch", causal_model, lambda: nn.Adam(0.01), 12, "causal, strides, float64 data",
          n=24, dtype=np.float64)
    check("length", causal_model, lambda: nn.SGD(0.1), 12, "causal, strides", n=24)
    check("length", bn_model, lambda: nn.Adam(0.01), 16, "batchnorm")
    check("length", short_model, lambda: nn.SGD(0.1), 8, "one step, empty tiles", n=16)
    # batches of 4 and 1: the last has fewer samples than ranks (empty tiles)
    check("batch", conv_model, lambda: nn.SGD(0.1), 4, "short batch", n=5, shuffle=False)
    # the optimizer's options and regularizers over split weights: the norms and the
    # penalties are the whole weights' (summed over the ranks' blocks), the limits low
    # enough that every step clips
    check("batch", reg_model, lambda: nn.SGD(0.2, clipnorm=0.02), 10,
          "clipnorm, regularizers")
    graphs()
    errors()
    if "--verbose" in sys.argv:
        m = build(conv_model, nn.SGD(0.1))
        x, y = data(12)
        m.fit(x, y, batch_size=6, epochs=3, verbose=2, distributed="model")
        sys.stdout.flush()
        # rank 0's progress lines are out before any "OK": the launcher joins the ranks'
        # output, and "OK 1" followed by "2/2 ..." read as "OK 12"
        dist.barrier().result(timeout=120)
    print(f"OK {rank}", flush=True)


main()
