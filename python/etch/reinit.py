"""Deterministic weights for corpus models: nothing is downloaded, and
kaiming-normal convolutions/linears keep activations from collapsing to ~0."""
import torch

SEED = 20261121


def reinit_weights(model, seed=SEED):
    """Re-initialises `model` in place from `seed` and returns it in eval mode."""
    torch.manual_seed(seed)
    for module in model.modules():
        if isinstance(module, (torch.nn.Conv2d, torch.nn.Linear)):
            torch.nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
            if module.bias is not None:
                torch.nn.init.uniform_(module.bias, -0.1, 0.1)
        elif isinstance(module, torch.nn.BatchNorm2d):
            # Non-trivial statistics so batch-norm folding is exercised.
            torch.nn.init.uniform_(module.weight, 0.5, 1.5)
            torch.nn.init.uniform_(module.bias, -0.1, 0.1)
            module.running_mean.uniform_(-0.1, 0.1)
            module.running_var.uniform_(0.5, 1.5)
    return model.eval()
